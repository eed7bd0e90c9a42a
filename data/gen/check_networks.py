#!/usr/bin/python3
"""Check every data/networks/*.json against the spadmap-network contract and
print per network: ops, tensors, M_R and the default-order peak footprint.

    /usr/bin/python3 data/gen/check_networks.py [file.json ...]

M_R  = max over ops of the summed bytes of the op's distinct non-param input
       and output tensors.
peak = default-order activation footprint: a non-param tensor is live from
       the step that creates it (graph inputs: from their first use) through
       its last use; a tensor with no consumer is live only at its creation
       step; peak = max over steps of the summed bytes of live tensors.
Exit status 1 if any file violates the contract.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NET_DIR = os.path.normpath(os.path.join(HERE, '..', 'networks'))
KINDS = ('activation', 'input', 'param', 'output')
DTYPE_BYTES = {'int8': 1, 'uint8': 1}


def nbytes(t):
    n = DTYPE_BYTES[t.get('dtype', 'int8')]
    for d in t['shape']:
        n *= d
    return n


def check(path):
    with open(path) as f:
        g = json.load(f)
    errs = []

    def req(cond, msg):
        if not cond:
            errs.append(msg)
        return cond

    req(g.get('format') == 'spadmap-network', 'format')
    req(g.get('version') == 1, 'version')
    req(isinstance(g.get('name'), str) and g['name'], 'name')
    req(g.get('name') == os.path.splitext(os.path.basename(path))[0],
        'name != file name')
    req(isinstance(g.get('source'), str), 'source')
    tensors, ops = g.get('tensors', []), g.get('ops', [])
    req(len(ops) > 0, 'no ops')
    T = {}
    for t in tensors:
        nm = t.get('name')
        if not req(isinstance(nm, str) and nm, 'tensor without name'):
            continue
        req(nm not in T, 'duplicate tensor %s' % nm)
        T[nm] = t
        sh = t.get('shape')
        req(isinstance(sh, list) and len(sh) >= 1 and
            all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in sh),
            'bad shape for %s: %r' % (nm, sh))
        req(t.get('dtype', 'int8') in DTYPE_BYTES, 'dtype of %s' % nm)
        req(t.get('kind', 'activation') in KINDS, 'kind of %s' % nm)
    kind = {n: t.get('kind', 'activation') for n, t in T.items()}
    opnames = set()
    produced = {}
    consumed = set()
    for i, op in enumerate(ops):
        nm = op.get('name')
        req(isinstance(nm, str) and nm, 'op %d without name' % i)
        req(nm not in opnames, 'duplicate op %s' % nm)
        opnames.add(nm)
        req(isinstance(op.get('type'), str) and op['type'], 'op %s type' % nm)
        ins, outs = op.get('inputs'), op.get('outputs')
        req(isinstance(ins, list), 'op %s inputs' % nm)
        req(isinstance(outs, list) and len(outs) >= 1, 'op %s outputs' % nm)
        req('attrs' not in op or isinstance(op['attrs'], dict), 'op %s attrs' % nm)
        for t in ins or []:
            if not req(t in T, 'op %s reads unknown tensor %s' % (nm, t)):
                continue
            req(kind[t] in ('input', 'param') or t in produced,
                'op %s reads %s before it is produced (not topological)' % (nm, t))
            consumed.add(t)
        req(len(set(outs or [])) == len(outs or []), 'op %s lists an output twice' % nm)
        for t in outs or []:
            if not req(t in T, 'op %s writes unknown tensor %s' % (nm, t)):
                continue
            req(kind[t] in ('activation', 'output'),
                'op %s writes %s tensor %s' % (nm, kind[t], t))
            req(t not in produced, 'tensor %s produced twice' % t)
            req(t not in (ins or []), 'op %s reads and writes %s' % (nm, t))
            produced[t] = i
    for n, k in kind.items():
        if k in ('activation', 'output'):
            req(n in produced, 'tensor %s (%s) has no producer' % (n, k))
        else:
            req(n in consumed, 'orphan %s tensor %s' % (k, n))
    req(any(k == 'output' for k in kind.values()), 'no output tensor')
    req(any(k == 'input' for k in kind.values()), 'no input tensor')
    if errs:
        return g, errs, None
    # metrics
    m_r = 0
    for op in ops:
        ts = set(op['inputs']) | set(op['outputs'])
        m_r = max(m_r, sum(nbytes(T[t]) for t in ts if kind[t] != 'param'))
    first, last = {}, {}
    for i, op in enumerate(ops):
        for t in op['inputs']:
            if kind[t] == 'param':
                continue
            first.setdefault(t, i)
            last[t] = i
        for t in op['outputs']:
            first[t] = i
            last.setdefault(t, i)
    delta = [0] * (len(ops) + 1)
    for t in first:
        b = nbytes(T[t])
        delta[first[t]] += b
        delta[last[t] + 1] -= b
    peak = cur = 0
    for i in range(len(ops)):
        cur += delta[i]
        peak = max(peak, cur)
    return g, errs, (len(ops), len(tensors), m_r, peak)


def main(argv):
    files = argv[1:] or sorted(glob.glob(os.path.join(NET_DIR, '*.json')))
    bad = 0
    print('%-28s %6s %8s %14s %14s' % ('network', 'ops', 'tensors', 'M_R bytes',
                                       'peak bytes'))
    for p in files:
        g, errs, m = check(p)
        name = os.path.splitext(os.path.basename(p))[0]
        if errs:
            bad += 1
            print('%-28s FAIL' % name)
            for e in errs[:20]:
                print('    ' + e)
            continue
        print('%-28s %6d %8d %14d %14d' % ((name,) + m))
    print('%d passed, %d failed' % (len(files) - bad, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
