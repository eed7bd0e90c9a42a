#!/usr/bin/env python3
"""`spadmap bench steps --fig11` (the offloading-steps paper's Fig. 11) against an
independent model of the paper's Definition 16, written here with Python sets.

LeNet-5's first layer: input 32x32, one channel, 5x5 kernels, stride 1, no padding,
so 28x28 patches. Row-by-Row takes the patches in row-major order, ZigZag reverses
every odd row (the paper's Fig. 9); both cut that order into groups of SG patches,
the groups running across rows. Step k loads the pixels of its group's union that
the previous group's union does not hold (I_slice = union \\ M_inp); delta =
sum |I_slice| + n (Section 7.1, tl = tacc = 1). Every value of the command's CSV is
compared with this model, and the table's summary line with the model's ranges.
usage: bench_fig11.py SPADMAP
"""
import subprocess, sys

HIN = WIN = 32
K = 5
HOUT = WOUT = HIN - K + 1
binary = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print('FAIL:', what)


def order(zigzag):
    return [(i, WOUT - 1 - j if zigzag and i % 2 else j) for i in range(HOUT) for j in range(WOUT)]


def model(zigzag, sg):
    """(steps, delta, most loads of one pixel) under Definition 16."""
    patches, prev, loaded, loads = order(zigzag), set(), 0, {}
    steps = 0
    for start in range(0, len(patches), sg):
        union = set()
        for i, j in patches[start:start + sg]:
            union |= {(h, w) for h in range(i, i + K) for w in range(j, j + K)}
        for x in union - prev:
            loads[x] = loads.get(x, 0) + 1
        loaded += len(union - prev)
        steps += 1
        prev = union
    return steps, loaded + steps, max(loads.values())


def run(*args, expect=0):
    r = subprocess.run([binary, 'bench', 'steps', '--fig11', *args], capture_output=True, text=True)
    check(r.returncode == expect, f'{args}: exit {r.returncode}, expected {expect}: {r.stderr.strip()}')
    return r.stdout, r.stderr


def ranges(values):
    out, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(str(values[i]) if i == j else f'{values[i]}-{values[j]}')
        i = j + 1
    return ', '.join(out) or 'none'


# every value of the CSV, on the figure's whole axis (SG 1..32)
csv, _ = run('--csv')
lines = csv.strip().split('\n')
check(lines[0] == 'sg,steps,row,zigzag,floor,row_max_loads,zigzag_max_loads,functional', f'header {lines[0]!r}')
rows = [l.split(',') for l in lines[1:]]
check([int(r[0]) for r in rows] == list(range(1, 33)), 'SG 1..32, one row each')
zz_wins, row_wins, ties = [], [], []
for r in rows:
    sg = int(r[0])
    rs, rd, rl = model(False, sg)
    zs, zd, zl = model(True, sg)
    got = tuple(int(x) for x in r[1:7])
    want = (rs, rd, zd, HIN * WIN + -(-HOUT * WOUT // sg), rl, zl)
    check(got == want, f'SG {sg}: command {got}, model {want} (steps, row, zigzag, floor, loads)')
    check(rs == zs, f'SG {sg}: Row-by-Row and ZigZag take {rs} and {zs} steps')
    check(r[7] == 'ok', f'SG {sg}: functional check {r[7]}')
    (zz_wins if zd < rd else row_wins if rd < zd else ties).append(sg)
    if sg % WOUT == 0:  # the paper: at multiples of Wout the two strategies are the same
        check(rd == zd, f'SG {sg} (a multiple of Wout): Row-by-Row {rd}, ZigZag {zd}')

# the table's summary says what the model says
table, _ = run()
want = (f'ZigZag shorter at SG {ranges(zz_wins)}; Row-by-Row shorter at SG {ranges(row_wins)}; '
        f'the same at SG {ranges(ties)} (Wout = 28)')
check(want in table, f'summary line: expected {want!r} in\n{table}')
check('functional check failed on 0 of 64 plans' in table, 'every plan checked')

# a part of the axis, and its Eq. 9 marks
part, _ = run('--groups', '27-29', '--csv')
check([l.split(',')[0] for l in part.strip().split('\n')[1:]] == ['27', '28', '29'], '--groups 27-29')
marked, _ = run('--groups', '29-29', '--max-loads', '2')
zl = model(True, 29)[2]
check(f'| {zl}* |' in marked if zl > 2 else f'| {zl} |' in marked, f'SG 29 ZigZag loads {zl}, marked past 2')

# options of the ILP experiment are refused, not ignored
_, err = run('--model', 'paper', expect=2)
check('--model is for the ILP experiment, not --fig11' in err, f'--model: {err!r}')
_, err = run('--groups', '0-3', expect=2)
check('--groups must be LO-HI' in err, f'--groups 0-3: {err!r}')

print(f'bench_fig11: {"FAIL" if failures else "ok"} ({failures} failures)')
sys.exit(1 if failures else 0)
