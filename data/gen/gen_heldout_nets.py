#!/usr/bin/python3
"""Generate torchvision networks that are not in the bundled set (data/networks),
for COSMA's held-out runs (docs/results/cosma_bounds.md, issue 36), with the same
tracing and lowering as data/gen/gen_networks.py (torch.fx, BN/activations folded,
int8 activations, weights=None, 224x224 input).

    /usr/bin/python3 data/gen/gen_heldout_nets.py                    # the test's files
    /usr/bin/python3 data/gen/gen_heldout_nets.py --out DIR NAME...  # any torchvision model

With no names it writes the files tests/test_cosma.c reads into tests/data/cosma:
regnet_y_400mf.json and regnet_y_400mf_block1.json (the stem and the first block
only, small enough for the tests' brute force over every order). The output is
deterministic.
"""
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_networks as g  # noqa: E402

import torch  # noqa: E402
import torchvision.models as tvm  # noqa: E402

TEST_OUT = os.path.normpath(os.path.join(HERE, '..', '..', 'tests', 'data', 'cosma'))
KW = {'googlenet': dict(aux_logits=False, init_weights=False),
      'inception_v3': dict(aux_logits=False, init_weights=False)}


def build(name):
    torch.manual_seed(0)
    model = getattr(tvm, name)(weights=None, **KW.get(name, {}))
    tensors, ops = g.trace_model(model, {'x': g.IMG})
    return tensors, ops, g.TV + ' %s(weights=None)' % name + g.SUFFIX


def prefix(tensors, ops, last_op):
    """The ops up to and including last_op; its output becomes the network's output."""
    keep = []
    for o in ops:
        keep.append(o)
        if o['name'] == last_op:
            break
    used = set()
    for o in keep:
        used.update(o['inputs'])
        used.update(o['outputs'])
    outs = set(keep[-1]['outputs'])
    sub = []
    for t in tensors:
        if t['name'] not in used:
            continue
        t = dict(t)
        if t['name'] in outs:
            t['kind'] = 'output'
        elif t.get('kind') == 'output':
            del t['kind']
        sub.append(t)
    return sub, keep


def main(argv):
    out, names = TEST_OUT, argv[1:]
    if names[:1] == ['--out']:
        out, names = names[1], names[2:]
    g.OUT_DIR = out
    os.makedirs(out, exist_ok=True)
    rows = []
    if not names:
        tensors, ops, source = build('regnet_y_400mf')
        g.write('regnet_y_400mf', source, tensors, ops, rows, '(1,3,224,224)')
        last = 'trunk_output.block1.block1-0.add'
        t1, o1 = prefix(tensors, ops, last)
        g.write('regnet_y_400mf_block1', source + '; only the ops up to ' + last, t1, o1, rows, '(1,3,224,224)')
    for name in names:
        tensors, ops, source = build(name)
        g.write(name, source, tensors, ops, rows, '(1,3,224,224)')


if __name__ == '__main__':
    main(sys.argv)
