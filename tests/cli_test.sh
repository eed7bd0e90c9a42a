#!/bin/sh
# The command line: exit codes (0 ok, 1 invalid input or plan, 2 usage, 3 solver
# limit, 130 interrupted) and messages.
# Ctrl-C and time limits are checked at named stages through the engine's test
# hook (tests/hook.sh): no sleeping, no timing.
# usage: cli_test.sh SPADMAP DATA_DIR TEST_DIR
bin=$1; data=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$3/hook.sh"
pass=0; fail=0
# expect CODE PATTERN CMD...: runs CMD, checks the exit code and that stdout+stderr matches PATTERN
expect() {
  code=$1; pattern=$2; shift 2
  "$@" >"$tmp/out" 2>&1
  expect_rc "$?" "$code" "$pattern" "$@"
}
# expect_rc RC CODE PATTERN CMD...: the checks of expect on a run already made ($tmp/out)
expect_rc() {
  rc=$1; code=$2; pattern=$3; shift 3
  if [ "$rc" -ne "$code" ]; then
    echo "FAIL (exit $rc, wanted $code): $*"; sed 's/^/  | /' "$tmp/out" | head -5; fail=$((fail + 1))
  elif ! grep -q -- "$pattern" "$tmp/out"; then
    echo "FAIL (no \"$pattern\"): $*"; sed 's/^/  | /' "$tmp/out" | head -5; fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
# expect_at HOW STAGES CODE PATTERN CMD...: as expect, with CMD interrupted (HOW
# int: SIGINT at each pause) or its deadline passed (HOW deadline) at STAGES; a
# stage never reached fails
expect_at() {
  how=$1; stages=$2; at_code=$3; at_pattern=$4; shift 4
  if [ "$how" = int ]; then interrupt_at "$stages" "$@"; else deadline_at "$stages" "$@"; fi
  cat "$tmp/err" >>"$tmp/out"
  if [ -n "$hook_msg" ]; then
    echo "FAIL ($hook_msg): $*"; sed 's/^/  | /' "$tmp/out" | head -5; fail=$((fail + 1)); return
  fi
  expect_rc "$hook_rc" "$at_code" "$at_pattern" "$@"
}
net=$data/networks/fig1.json
expect 1 "needs a terminal" "$bin" </dev/null
expect 0 "commands:" "$bin" --help
expect 2 "unknown command" "$bin" frobnicate
expect 2 "missing arguments" "$bin" info
expect 0 "usage: spadmap info NET" "$bin" info --help
expect 0 "usage: spadmap solve" "$bin" solve --help
expect 0 "usage: spadmap validate" "$bin" validate --help
expect 0 "usage: spadmap bench" "$bin" bench --help
expect 2 "unknown option --frob" "$bin" info --frob "$net"
expect 1 "nope.json: cannot open" "$bin" info "$tmp/nope.json"
printf '{"format": "spadmap-network", "version": 1,\n "tensors": [' >"$tmp/trunc.json"
expect 1 "trunc.json:2:" "$bin" info "$tmp/trunc.json"
expect 0 "M_P .*18,432" "$bin" info "$net"
expect 0 '"m_p":	18432' "$bin" info --json "$net"
expect 0 "belady" "$bin" solve --list
expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --out "$tmp/plan.json"
expect 0 "valid: " "$bin" validate "$net" "$tmp/plan.json"
expect 0 "= M_P" "$bin" solve "$net" --budget M_P --schedule mpmf --replacement lru --allocator first-fit
expect 0 "16,384 bytes" "$bin" solve "$net" --budget 16K
expect 0 "with params" "$bin" solve "$net" --budget 1M --params
expect 1 "infeasible: budget 100 < M_R = 12288" "$bin" solve "$net" --budget 100
expect 1 "below M_R .*spadmap offchip .* --budget 6144 --tiled-net T.json., then .spadmap solve T.json --budget 6144" "$bin" solve "$net" --budget M_R/2 # one budget grammar; where such a budget goes
expect 2 "budget \"lots\"" "$bin" solve "$net" --budget lots
expect 2 "unknown schedule policy \"nope\"" "$bin" solve "$net" --budget M_R --schedule nope
expect 0 "schedule dnc" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a1,a4 --time-limit 2
expect 2 "break node \"nope\": no such op" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a1,nope
expect 2 "break node \"a3\" is not a descendant of \"a2\"" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a2,a3
expect 2 "break node \"a6\" separates nothing" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a1,a6
expect 0 "schedule dnc" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a1 --mp-orders 2 --time-limit 2
expect 2 "--mp-orders \"3\": expected 1 or 2" "$bin" solve "$net" --budget M_R --schedule dnc --mp-orders 3
expect 2 "--mp-orders applies to --schedule cosma or dnc only" "$bin" solve "$net" --budget M_R --mp-orders 2
expect 2 "--break-nodes \"darts\": expected NET=OP,OP" "$bin" bench cosma --network darts --break-nodes darts
expect 2 "--break-nodes \"resnet50\": not one of the NAS networks" "$bin" bench cosma --network darts --break-nodes resnet50=conv1
expect 2 "--break-nodes: darts is given twice" "$bin" bench cosma --network darts --break-nodes darts=a --break-nodes darts=b
expect 2 "--model \"gurobi\": expected ours or paper" "$bin" bench cosma --network resnet50 --model gurobi
expect 2 "needs NET and --budget" "$bin" solve "$net"
# A hand-broken plan: move every placement to offset 0 (overlaps appear).
sed 's/"offset":[0-9]*/"offset":0/g' "$tmp/plan.json" >"$tmp/broken.json"
expect 1 "overlaps" "$bin" validate "$net" "$tmp/broken.json"
sed 's/"noncompulsory_bytes":[0-9]*/"noncompulsory_bytes":7/' "$tmp/plan.json" >"$tmp/metrics.json"
expect 1 "metrics.noncompulsory_bytes is 7" "$bin" validate "$net" "$tmp/metrics.json"
head -c 100 "$tmp/plan.json" >"$tmp/cut.json"
expect 1 "cut.json:.*end of file" "$bin" validate "$net" "$tmp/cut.json"
expect 0 "invalid plans or errors: 0" "$bin" bench --network fig1 --repeat 1
expect 0 "^fig1,0,M_R" "$bin" bench --network fig1 --repeat 1 --csv
# bench cosma: the paper's experiment on one quick network; its CSV has one row per
# setting x budget x scheme (3 budgets x 4 baselines + cosma) and no invalid plan.
# check NAME CONDITION: counts a shell condition as a pass or a failure
check() {
  if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
expect 0 "bench cosma" "$bin" bench --help
expect 0 "usage: spadmap bench cosma" "$bin" bench cosma --help
csv=$tmp/cosma.csv
expect 0 "| fcn_resnet50 | M_R |" "$bin" bench cosma --network fcn_resnet50 --acts --time-limit 5 --csv "$csv"
check "bench cosma: CSV header" '[ "$(head -n 1 "$csv")" = \
  "network,setting,budget_name,budget_bytes,scheme,noncompulsory_bytes,status,objective,bound,gap,seconds,valid" ]'
check "bench cosma: 15 CSV rows" '[ "$(awk "END { print NR - 1 }" "$csv")" -eq 15 ]'
check "bench cosma: no row with valid=0" '! awk -F, "NR > 1 && \$NF == \"0\"" "$csv" | grep -q .'
check "bench cosma: no solve error" '! grep -q ",\"*error: " "$csv"'
expect 2 "unknown option --frob (see spadmap bench cosma --help)" "$bin" bench cosma --frob
expect 2 "unknown network \"nope\"" "$bin" bench cosma --network nope
expect 2 "exclude each other" "$bin" bench cosma --human-only --nas-only
expect 2 "time-limit \"0\": expected a positive number" "$bin" bench cosma --time-limit 0
expect 2 "nothing to run" "$bin" bench cosma --nas-only --params
# --unfolded (BN and activations as ops): resnet50's three budgets are one (its residual
# add is the largest op and the peak), so the distinct-budget mean counts one run of three
expect 0 "each distinct budget once: 1 of the 3 runs" "$bin" bench cosma --unfolded --network resnet50 --acts
expect 0 "mean reduction 72.8% (over 3 runs); at M_R alone 68.4% (over 1 run)$" "$bin" bench cosma --unfolded \
  --network densenet121 --acts --wall-limit 600
expect 2 "has the ten human-designed networks only" "$bin" bench cosma --unfolded --nas-only
expect 2 "--dir and --unfolded exclude each other" "$bin" bench cosma --unfolded --dir "$data/networks"
expect 2 "wall-limit \"0\": expected a positive number" "$bin" bench cosma --wall-limit 0
# the joint policy and the paper's model (with its overlap analysis)
dia=$data/networks/diamond.json
expect 0 "solver         optimal" "$bin" solve "$dia" --budget M_R --schedule cosma
expect 0 "schedule cosma, replacement cosma, allocator cosma" "$bin" solve "$dia" --budget M_P --schedule cosma --model paper
expect 2 "--model \"frob\": expected ours or paper" "$bin" solve "$dia" --budget M_R --schedule cosma --model frob
expect 3 "after its overlap analysis, needs over 400000 address-ordering pairs.*use the cosma pipeline" "$bin" solve "$data/networks/pnasnet5.json" --budget M_R --schedule cosma --model paper
# solver honesty: the paper's model at 1 GiB was "optimal" with overlapping placements
for n in chain skip fig1 diamond alexnet; do
  # on one line for the pattern; the exit code is spadmap's, not tr's (a pipeline's is its last command's)
  expect 0 "solver         optimal.*validator      valid" sh -c 'out=$("$0" solve "$1" --budget 1G --schedule cosma --model paper); rc=$?; printf "%s" "$out" | tr "\n" " "; exit $rc' "$bin" "$data/networks/$n.json"
done
# a solver limit is not invalid input: exit 3, documented in --help
expect 3 "needs about .* s to build and load" "$bin" solve "$data/networks/transformer.json" --budget M_R --schedule cosma --model paper --time-limit 0.5
expect 0 "3 a solver limit" "$bin" --help
# the time limit covers building the models: a deadline that passes while cosma
# builds its model on nasnet_a (GLPK was deaf there for seconds) ends the solve
# with the best plan so far, said so, valid (it was "ends within 3 s")
if hook_usable; then
  expect_at deadline cosma.model 0 "solver         not proven (time limit)" "$bin" solve "$data/networks/nasnet_a.json" --budget M_R --schedule cosma --time-limit 1000 --out "$tmp/dl.json"
  expect 0 "valid: " "$bin" validate "$data/networks/nasnet_a.json" "$tmp/dl.json"
else
  echo "note: the Ctrl-C and deadline cases are not checked (no mkfifo, timeout or env --default-signal)"
fi
# options that do not apply to the chosen policies
expect 2 "--break-nodes applies to --schedule dnc only" "$bin" solve "$net" --budget M_R --break-nodes a1
expect 2 "--model applies to --schedule cosma or dnc only" "$bin" solve "$net" --budget M_R --model paper
expect 0 "warning: --time-limit has no effect" "$bin" solve "$net" --budget M_R --time-limit 5
expect 0 "warning: --schedule cosma chooses replacement and allocation itself" "$bin" solve "$net" --budget M_R --schedule cosma --replacement lru
expect 2 "time-limit \"1e30\" is too large: at most 10000000 seconds" "$bin" solve "$net" --budget M_R --time-limit 1e30
expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --time-limit 1e7
# --out: regular files via a temporary and rename; devices in place; errors reported
expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --out "$tmp/plan2.json"
check "--out: no temporary left behind" '! ls -A "$tmp" | grep -q spadmap-out'
long=$tmp/$(printf '%0250d' 0).json
expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --out "$long"
check "--out: a 255-byte file name works" '[ -s "$long" ]'
expect 0 "\"format\": \"spadmap-plan\"" "$bin" solve "$net" --budget M_R --out -
long2=$tmp/$(printf '%0251d' 0).txt
check "snapshot --out: a 255-byte name, written, no temporary left" \
  '"$bin" snapshot "$net" --out "$long2" && [ -s "$long2" ] && ! ls -A "$tmp" | grep -q spadmap-out'
ln -s "$tmp/plan3.json" "$tmp/link.json"
expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --out "$tmp/link.json"
check "--out: through a symlink, the file it names is written and the link kept" '[ -L "$tmp/link.json" ] && [ -s "$tmp/plan3.json" ]'
expect 1 "cannot write" "$bin" solve "$net" --budget M_R --out "$tmp/nodir/plan.json"
# Devices: private nodes (as root) so that a binary with the old bug replaces only
# them, never the system's /dev/null; as a user /dev itself is safe (not writable).
devs=
if mknod "$tmp/full" c 1 7 2>/dev/null && mknod "$tmp/null" c 1 3 2>/dev/null && (: >"$tmp/null") 2>/dev/null; then
  devs=$tmp
elif [ "$(id -u)" -ne 0 ] && [ -c /dev/full ] && [ -c /dev/null ]; then
  devs=/dev
fi
if [ -n "$devs" ]; then
  expect 1 "full: cannot write: No space left on device" "$bin" solve "$net" --budget M_R --out "$devs/full"
  expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --out "$devs/null"
  expect 1 "full: cannot write: No space left on device" "$bin" snapshot "$net" --out "$devs/full"
  check "snapshot --out to a device: in place" '"$bin" snapshot "$net" --out "$devs/null"'
  check "--out to a device: still a character device" '[ -c "$devs/null" ] && [ -c "$devs/full" ]'
  check "--out to a device: no temporary next to it" '! ls -A "$devs" | grep -q spadmap-out'
else
  echo "note: --out to a device not checked (mknod refused and /dev is writable)"
fi
if mkfifo "$tmp/fifo" 2>/dev/null; then
  (timeout 20 cat "$tmp/fifo" >"$tmp/fifo.out") &
  expect 0 "validator      valid" "$bin" solve "$net" --budget M_R --out "$tmp/fifo"
  wait
  check "--out FIFO: written in place" 'grep -q spadmap-plan "$tmp/fifo.out" && [ -p "$tmp/fifo" ]'
else
  echo "note: --out to a FIFO not checked (mkfifo failed)"
fi
# Ctrl-C keeps the best plan found so far: printed, validated, written; exit 130
# (while cosma builds its model, and while its MIP runs)
if hook_usable; then
  for stage in cosma.model ilp; do
    rm -f "$tmp/int.json"
    expect_at int $stage 130 "interrupted    Ctrl-C: this is the best plan found so far" "$bin" solve "$data/networks/nasnet_a.json" --budget M_R --schedule cosma --time-limit 600 --out "$tmp/int.json"
    expect 0 "valid: " "$bin" validate "$data/networks/nasnet_a.json" "$tmp/int.json"
  done
fi
# bench scale: generated DAGs through the real commands (small sizes here; the README has 1k-50k)
expect 0 "| 110 | .* s, .* MiB | .* s, .* MiB | .* s, .* MiB | .* s, .* MiB |" "$bin" bench scale --sizes 100 --csv "$tmp/scale.csv"
check "bench scale: CSV rows, every command exit 0" '[ "$(awk -F, "NR > 1 && \$5 == 0" "$tmp/scale.csv" | wc -l)" -eq 4 ]'
expect 2 "--sizes \"x\": expected op counts" "$bin" bench scale --sizes x
# solve --budget M_R needs no M_P search (it ran one first: 18 s on this 20k-op graph)
mkdir "$tmp/scale"
expect 0 "| 20009 |" "$bin" bench scale --sizes 20000 --keep --dir "$tmp/scale"
# (it was "ends within 8 s"): with the M_P search's deadline set to pass, the
# search must never be reached
if hook_usable; then
  deadline_at minpeak "$bin" solve "$tmp/scale/scale20009.json" --budget M_R
  check "solve --budget M_R on 20k ops runs no M_P search (exit $hook_rc)" '[ "$hook_rc" = 0 ] && [ "$hook_msg" = "the deadline never came at minpeak" ]'
  expect_at deadline minpeak 0 "NOT proven" "$bin" info "$data/networks/transformer.json" --time-limit 1000
fi
# info bounds the M_P search by default from 10,000 ops (whether it proves in that
# time depends on the machine: the note is what is certain); --time-limit none lifts that
expect 0 "the M_P search had 0.2 s, the default from 10000 ops" "$bin" info "$tmp/scale/scale20009.json"
if hook_usable; then
  expect_at deadline minpeak 0 "NOT proven" "$bin" info "$tmp/scale/scale20009.json" --time-limit 1000
fi
expect 0 "minimum peak, exact" "$bin" info "$net" --time-limit none
expect 2 'or "none"' "$bin" info "$net" --time-limit soon
# inside one layer: layers, layer (each method), bench layer, errors
r50=$data/networks/resnet50.json
expect 0 "7_112_3_64_2 " "$bin" layers "$r50"
expect 0 "24 unique layers" "$bin" layers "$r50"
expect 0 "12 convolution/matmul ops skipped, the layer model cannot express them; the first: .*dilation 2x2" "$bin" layers "$data/networks/darts.json"
expect 0 '"name":	"3_7_512_512_1"' "$bin" layers --json "$r50"
expect 0 "spatial_for" "$bin" layer "$r50" layer4.0.conv2 --arch cosa_baseline --method cosa
expect 0 "// DRAM level" "$bin" layer 1_14_256_1024_1 --method random --samples 20
expect 0 "optimum over all" "$bin" layer R=1,S=1,P=4,Q=1,C=4,K=2,N=1 --method exhaustive --arch cosa_baseline
expect 0 '"latency_cycles"' "$bin" layer 1_7_512_2048_1 --arch "$data/arch/cosa_4xpe.json" --json
expect 0 "exhaustive" "$bin" layer --list
expect 0 "best of 3 weight vectors" "$bin" layer 1_7_512_2048_1 --method cosa-plus
expect 0 "cosa: MIP optimal.*0 local-search steps" "$bin" layer 1_7_512_2048_1 --method cosa
expect 0 "best of 2 weight vectors" "$bin" layer 1_7_512_2048_1 --method cosa-plus --weights 1,1,1,0
# names mean the paper: cosa has no latency term, no local search, no per-round cap
expect 2 "the latency term L is cosa-plus's" "$bin" layer 1_7_512_2048_1 --method cosa --weights 1,1,1,5
expect 2 "--no-refine is for cosa-plus/cosa-single only, not cosa" "$bin" layer 1_7_512_2048_1 --method cosa --no-refine
expect 2 "--mip-limit is for cosa-plus/cosa-single only, not cosa" "$bin" layer 1_7_512_2048_1 --method cosa --mip-limit 1
# the Timeloop export: three files; an unwritable directory is an error; not for SmartShuttle
expect 0 "spatial_for" "$bin" layer 1_14_256_1024_1 --method cosa --export-timeloop "$tmp/tl"
expect 0 "split: " cat "$tmp/tl/map.yaml"
expect 0 "meshX: 4" cat "$tmp/tl/arch.yaml"
expect 0 "K: 1024" cat "$tmp/tl/prob.yaml"
expect 1 "cannot create the directory" "$bin" layer 1_14_256_1024_1 --method random --export-timeloop "$tmp/nope/deeper"
expect 2 "--export-timeloop is for the mappers" "$bin" layer 3_7_64_64_1 --method smartshuttle --export-timeloop "$tmp/tl"
expect 0 "local-search step" "$bin" layer 1_7_512_2048_1 --method cosa-single
expect 0 "0 local-search steps" "$bin" layer 1_7_512_2048_1 --method cosa-single --no-refine --mip-limit 0
expect 2 "expected a work count" "$bin" layer 1_7_512_2048_1 --method cosa-plus --mip-limit -1
# NaN passes both range tests (it made GLPK assert); junk after a weight was dropped
expect 2 "expected non-negative numbers" "$bin" layer 1_4_4_4_1 --method cosa-single --weights nan,1,1
expect 2 "expected non-negative numbers" "$bin" layer 1_4_4_4_1 --method cosa-single --weights 1,1,1x
expect 2 "expected non-negative numbers" "$bin" layer 1_4_4_4_1 --method cosa-single --weights 1,1,1,
# an arch whose outermost level has a capacity (random divided by zero)
sed 's/"name": "DRAM",/"name": "DRAM", "capacity": 10,/' "$data/arch/cosa_baseline.json" >"$tmp/dramcap.json"
expect 1 "levels\\[5\\].capacity: the outermost level holds the whole layer" "$bin" layer 3_7_64_64_1 --method random --arch "$tmp/dramcap.json"
# bytes that drive a terminal are shown escaped, never sent (an ESC in a method name, an op name)
expect 2 'unknown method "x\\x1b\]0;t\\x07"' "$bin" layer 3_7_1_1_1 --method "$(printf 'x\033]0;t\007')"
expect 1 'no op named "a\\x1b\[2Jb"' "$bin" layer "$r50" "$(printf 'a\033[2Jb')"
# an empty --arch is named as such (it was "data/arch/.json: cannot open")
expect 2 "arch: empty" "$bin" layer 3_7_64_64_1 --arch ""
expect 2 "arch: empty" "$bin" layer 3_7_64_64_1 --method smartshuttle --arch ""
# the explorer's --arch takes a bundled name as cost and layer do (it was "cosa_4xpe: cannot open")
expect 0 "cycles, .* on cosa-4x" "$bin" snapshot "$dia" --arch cosa_4xpe --size 120x30
expect 1 "arch/nope.json: cannot open" "$bin" snapshot "$dia" --arch nope
expect 3 "the wall clock (1e-09 s) stopped it after 0 rounds, before its work budget (no MIP solved in it)" "$bin" layer 3_7_512_512_1 --method cosa --time-limit 1e-9
# an option of another family of methods is refused, not ignored with a bad value
expect 2 "--capacity is for smartshuttle, not cosa" "$bin" layer 3_7_64_64_1 --method cosa --capacity foo
expect 2 "--group-size is for the steps-\* methods, not smartshuttle" "$bin" layer 3_7_64_64_1 --method smartshuttle --group-size 3
# a shape whose row-major strides pass int64 is refused (it printed a wrapped offset, exit 0)
expect 2 "the row-major strides overflow 64 bits" "$bin" chunks --shape 99999999999,99999999999,99999999999 --tile 1,1,1 --origin 1,0,0
# bench: a --network that names no file is a usage error (it printed "0 network(s)", exit 0);
# --repeat is a whole count (2.5 ran twice); an empty --dir says so (qsort(NULL) under UBSan)
expect 2 'no .*/nope.json' "$bin" bench --network nope
expect 2 "expected a count from 1 to 1000000" "$bin" bench --repeat 2.5
expect 2 'no .*/nope.json' "$bin" bench pack --nets-only --network nope
# counts and seconds are read whole and in range (atoi/atof read 2.5 as 2, 1e999 as 1, took inf)
expect 2 'expected a byte count from 1 to 2^62' "$bin" pack "$net" --capacity 99999999999999999999
expect 2 'expected seconds, more than 0' "$bin" pack "$net" --time-limit inf
expect 2 'count from 2 to 10000 (got "2.5")' "$bin" sweep "$net" --points 2.5
expect 2 'factor from 1 to 100 (got "1.5abc")' "$bin" sweep "$net" --to 1.5abc
expect 2 '--divisor "2.5": expected a positive integer' "$bin" bench taa --divisor 2.5
expect 2 '"1e999": --time-limit takes' "$bin" bench pack --seeds 1e999
expect 2 'count from 1 to 1000000 (got "2.5")' "$bin" bench-render --repeat 2.5
empty_dir=$(mktemp -d)
expect 1 "no \*.json networks in" "$bin" bench --dir "$empty_dir"
rmdir "$empty_dir"
expect 2 "--samples is for the mappers" "$bin" layer 3_7_64_64_1 --method steps-row --samples 3
# ... and so is one another mapper reads (--samples with cosa did nothing)
expect 2 "--samples is for random only, not cosa" "$bin" layer 3_7_64_64_1 --samples 3
expect 2 "--weights is for cosa/cosa-plus/cosa-single only, not exhaustive" "$bin" layer 3_7_64_64_1 --method exhaustive --weights 1,1,1
expect 2 "--no-refine is for cosa-plus/cosa-single only, not random" "$bin" layer 3_7_64_64_1 --method random --no-refine
# a network without its op: say the op is missing (it said "expected R_P_C_K_stride")
expect 2 "is a file: give the op too" "$bin" layer "$r50"
# SmartShuttle's oracle keeps to --time-limit (a 64 MiB buffer: billions of tilings): exit 3
sed 's/"capacity": 110592/"capacity": 67108864/' "$data/arch/smartshuttle.json" >"$tmp/ss64m.json"
expect 3 "oracle's time limit (0.0333 s) passed" "$bin" layer "R=1,S=1,P=4096,Q=4096,C=4096,K=4096" --method smartshuttle --arch "$tmp/ss64m.json" --time-limit 0.1
expect 2 "unknown method \"frob\"" "$bin" bench layer --method frob
expect 2 "unknown method \"frob\"" "$bin" layer 1_7_512_2048_1 --method frob
expect 2 "expected R_P_C_K_stride" "$bin" layer 3_56_64
expect 2 "expected latency, energy or edp" "$bin" layer 1_7_512_2048_1 --objective speed
expect 1 "no op named \"nope\"" "$bin" layer "$r50" nope
expect 1 "is a max_pool2d, not a convolution or matmul" "$bin" layer "$r50" maxpool
expect 1 "nope.json: cannot open" "$bin" layer 1_7_512_2048_1 --arch "$tmp/nope.json"
printf '{"format": "spadmap-arch", "version": 1, "name": "x", "source": "t", "macs": 4, "mac_pj": 1,\n "precision": {"weights": 1, "inputs": 1, "outputs": 2}, "levels": [{"name": "L1"}]}' >"$tmp/arch.json"
expect 1 "arch.json: levels: expected 2..8 levels, got 1" "$bin" layer 1_7_512_2048_1 --arch "$tmp/arch.json"
expect 3 "too large for a complete search" "$bin" layer 3_56_64_64_1 --method exhaustive --time-limit 0.5
cat >"$tmp/convs.json" <<'NET'
{"format": "spadmap-network", "version": 1, "name": "convs", "source": "cli test",
 "tensors": [{"name": "x", "shape": [1, 64, 14, 14], "kind": "input"}, {"name": "w1", "shape": [128, 64, 1, 1], "kind": "param"},
  {"name": "y", "shape": [1, 128, 14, 14]}, {"name": "w2", "shape": [128, 128, 1, 1], "kind": "param"},
  {"name": "z", "shape": [1, 128, 14, 14], "kind": "output"}],
 "ops": [{"name": "c1", "type": "conv2d", "inputs": ["x", "w1"], "outputs": ["y"], "attrs": {"kernel": [1, 1], "stride": [1, 1], "padding": [0, 0], "groups": 1}},
  {"name": "c2", "type": "conv2d", "inputs": ["y", "w2"], "outputs": ["z"], "attrs": {"kernel": [1, 1], "stride": [1, 1], "padding": [0, 0], "groups": 1}}]}
NET
expect 0 "2 of 2 layers mapped" "$bin" bench layer "$tmp/convs.json" --random 20 --method cosa-plus
expect 0 "convs,cosa-4xpe,1_14_128_128_1,1," "$bin" bench layer "$tmp/convs.json" --random 20 --arch cosa_4xpe --csv --method cosa
# the default: the paper's cosa next to cosa-plus and its ablations
expect 0 "cosa-plus, L=0 (no latency term) .* 2/2 " "$bin" bench layer "$tmp/convs.json" --random 20
expect 0 "convs,cosa-baseline,1_14_128_128_1,1,cosa-plus-norefine," "$bin" bench layer "$tmp/convs.json" --random 20 --csv
expect 2 "--no-refine is for --method" "$bin" bench layer "$tmp/convs.json" --no-refine
# SmartShuttle and the offloading steps: methods of the layer command
vgg=$data/networks/vgg16.json
expect 0 "Table I's pick" "$bin" layer "$vgg" features.28 --batch 3 --method smartshuttle
expect 0 "oracle's pick" "$bin" layer "$vgg" features.0 --method smartshuttle --capacity halo
expect 0 "steps-ilp" "$bin" layer --list
expect 0 "duration 1085 " "$bin" layer "R=3,S=3,P=3,Q=3,C=2,K=2,N=1,stride=1" --method steps-zigzag --group-size 2 --cycles 10,5,3
expect 2 "cycles must be TL,TW,TACC" "$bin" layer 3_3_1_1_1 --method steps-row --cycles 1,2
expect 0 '"oracle_pick":	"ORO"' "$bin" layer "$vgg" features.28 --batch 3 --method smartshuttle --json
expect 0 '"functional_check":	"ok"' "$bin" layer 3_4_1_1_1 --method steps-zigzag --group-size 2 --json
expect 2 "capacity must be paper, halo or raw" "$bin" layer "$vgg" features.0 --method smartshuttle --capacity frob
expect 0 "functional check: ok" "$bin" layer "R=3,S=3,P=3,Q=3,C=2,K=2,N=1,stride=1" --method steps-zigzag --group-size 2
expect 0 "ILP: optimal" "$bin" layer "R=3,S=3,P=3,Q=3,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 3
expect 0 "ILP: optimal.*proven by the MIP" "$bin" layer "R=3,S=3,P=3,Q=3,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 3 --model paper
expect 0 '"proven_by":	"bound"' "$bin" layer "R=3,S=3,P=3,Q=3,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 3 --json
expect 2 "--model must be exact or paper" "$bin" layer 3_3_1_1_1 --method steps-ilp --model frob
expect 0 "most loads of one pixel 3" "$bin" layer "3_4_1_1_1" --method steps-row --group-size 2
expect 1 "more than nbopPE" "$bin" layer "3_4_8_8_1" --method steps-row --nbop-pe 100
expect 1 "no grouping" "$bin" layer "3_3_1_1_1" --method steps-ilp --group-size 3 --size-mem 18
expect 0 "6 steps (Kmin 5)" "$bin" layer "R=3,S=3,P=3,Q=3,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 2 --steps 6
expect 0 "Eq. 15 objective 33 " "$bin" layer "R=3,S=3,P=3,Q=3,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 2 --steps 6
expect 1 "4 steps: 9 patches in steps of 1 to 2 patches take 5 (Kmin) to 9 steps" "$bin" layer "R=3,S=3,P=3,Q=3,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 2 --steps 4
expect 2 "--steps is for steps-ilp" "$bin" layer 3_3_1_1_1 --method steps-row --steps 6
# no plan within the limit (23 steps on 25 patches, Eq. 9: no start, the search needs seconds):
# the message counts the whole solve, the search's and the MIP's time (it gave the MIP's alone)
# Ctrl-C stops the steps ILP (10x10, G = 3: not proven in a minute) and keeps its best plan, checked; exit 130
if hook_usable; then
  # the paper's CoSA MIP stopped by the wall clock says so, not "time limit" (h13's trial: four runs
  # on a busy machine, four node counts, each "(time limit)")
  expect_at deadline ilp 3 "cosa: the wall clock (10.0 s) stopped it without a solution, before its work budget" "$bin" layer 3_7_512_512_1 --method cosa
  expect_at deadline steps.exact 3 "timeout without a solution after [0-9.]* s (the exact search" "$bin" layer 3_5_1_1_1 --method steps-ilp --group-size 2 --steps 23 --time-limit 1000
  expect_at int steps.exact 130 "ILP: cancelled in" "$bin" layer "R=3,S=3,P=8,Q=8,C=1,K=1,N=1,stride=1" --method steps-ilp --group-size 3 --time-limit 60
  check "steps-ilp: the plan of an ILP stopped by Ctrl-C is checked" 'grep -q "functional check: ok" "$tmp/out"'
fi
expect 0 "proven optimal: 6 of 6" "$bin" bench steps --inputs 4-5 --groups 3-5 --time-limit 20
expect 0 "proven optimal: 1 of 1 within 0.5 s" "$bin" bench steps --inputs 4-4 --groups 3-3 --time-limit 0.5 --wall-limit 600 # nodes decide; the wall clock cannot stop a 4x4 proof first
expect 2 "seconds in 0.01..86400" "$bin" bench steps --time-limit 0
expect 2 "LO-HI within" "$bin" bench steps --inputs 9-4
# a grouping proven not to exist (Eq. 9 at 1: 5x5 G = 2) is an answer, not an error (it was "error", exit 1)
expect 0 "^5,2,0,.*,infeasible,.*,ok$" "$bin" bench steps --inputs 5-5 --groups 2-2 --max-loads 1 --csv
expect 0 "functional check failed on 0; proven infeasible (no grouping keeps Eq. 9 or fits) on 1" "$bin" bench steps --inputs 5-5 --groups 2-3 --max-loads 1
# no plan within the node budget (12x12 G = 6, Eq. 9 at 1) is a timeout, not an error (it was exit 1)
expect 0 "^12,6,0,.*,timeout (no plan),.*,ok$" "$bin" bench steps --inputs 12-12 --groups 6-6 --max-loads 1 --csv --wall-limit 600
expect 0 "MACs / DRAM access" "$bin" bench shuttle
# Table III's static baselines (issue 24): one ORO tiling for all of Table II's layers
check "bench shuttle: Zhang and Eyeriss" 'grep -q "| static ORO: Zhang (free) / Eyeriss (rates) | 476.8 | 192.4 | 205.5 | 446.4 |" "$tmp/out"'
check "bench shuttle: with Table II's rates IRO comes out best" 'grep -q "compression free ORO < IRO < WRO; with the rates IRO < ORO < WRO" "$tmp/out"'
check "bench shuttle: Zhang on the vgg16 file" 'grep -q "| Zhang (static ORO (64, 8, 25, 28)) | 187.1 | 81.3 | 209.5 | 478.0 | 192.7 |" "$tmp/out"'
expect 0 "with the rates ORO < WRO < IRO" "$bin" bench shuttle --capacity halo
expect 0 "| 108 | 187.8 | 193.7 | 195.2 | 583.5 | 176.3 | 205.5 | (64, 8, 29, 29) | IRO < ORO < WRO |" "$bin" bench shuttle --buffer-sweep
check "bench shuttle --buffer-sweep: nine buffers, with and without compression" '[ "$(grep -c "^| [0-9]* | [0-9]" "$tmp/out")" -eq 18 ]'
check "bench shuttle --buffer-sweep: compression free at 512 KB" 'grep -q "| 512 | 271.9 | 269.6 | 263.4 | 398.2 | 240.4 | 294.7 | (128, 8, 33, 56) | WRO < ORO < IRO |" "$tmp/out"'
expect 1 "dir /nonexistent: not a directory" "$bin" bench shuttle --dir /nonexistent
check "bench shuttle --dir that is no directory: nothing printed before the error" '[ -z "$("$bin" bench shuttle --dir /nonexistent 2>/dev/null)" ]'
# bench: each figure in its own buffer (default peak printed M_R before)
expect 0 "default peak 1.72 MiB" "$bin" bench --network densenet121
# bench runs offline allocators as themselves (pack was simulated as linear: 1.4 MB at M_P)
expect 0 "M_P  default  belady      pack                       0 " "$bin" bench --network densenet121
# the budget sweep and the budget forms the tool prints
expect 0 "32 fast combinations x 24 budgets" "$bin" sweep "$dia"
expect 0 "10240,default,belady,linear,36864,3,10240" "$bin" sweep "$dia" --csv --points 2
check "sweep --csv: a header and 32 x 3 rows" '[ "$("$bin" sweep "$dia" --csv --points 3 | wc -l)" -eq 97 ]'
expect 2 "--points wants a count" "$bin" sweep "$dia" --points 1
expect 0 "budget         11,264 bytes" "$bin" solve "$dia" --budget M_R*1.1
expect 0 "budget         10,240 bytes" "$bin" solve "$dia" --budget 10,240
expect 0 "budget         11,264 bytes" "$bin" solve "$dia" --budget 11.0K
expect 2 "a byte count is whole" "$bin" solve "$dia" --budget 100.5
# the explorer's settings from the command line, and a plan that does not fit
"$bin" solve "$dia" --budget 12K --out "$tmp/d.plan.json" >/dev/null
expect 0 "opened d.plan.json: valid" "$bin" snapshot "$dia" --plan "$tmp/d.plan.json"
expect 1 "unknown op" "$bin" snapshot "$data/networks/fig1.json" --plan "$tmp/d.plan.json"
expect 2 "unknown schedule policy \"frob\"" "$bin" snapshot "$dia" --schedule frob
expect 2 "--time-limit wants seconds" "$bin" snapshot "$dia" --time-limit soon
# tiles: chunks of one tile, off-chip plans and their validation
expect 0 '"offsets": \[0, 16384, 32768, 49152\], "sizes": \[8192, 8192, 8192, 8192\]' "$bin" chunks --shape 4,128,128 --tile 4,64,128 --json
expect 0 "1 chunk, 16384 bytes, span 49152..65536" "$bin" chunks --shape 4,128,128 --tile 1,128,128 --origin 3,0,0
expect 2 "origin 64 + tile 128 exceeds" "$bin" chunks --shape 4,128,128 --tile 4,128,128 --origin 0,64,0
expect 2 "needs --shape and --tile" "$bin" chunks --shape 4,128,128
expect 2 "as many in both" "$bin" chunks --shape 4,128,128 --tile 4,64
sq=$data/networks/squeezenet1_0.json
expect 0 "plan           valid" "$bin" offchip "$sq" --budget M_R/4 --layout nhwc --out "$tmp/off.json"
expect 0 "off-chip plan (taa)" "$bin" validate "$sq" "$tmp/off.json"
sed 's/"base": 0,/"base": 1,/' "$tmp/off.json" >"$tmp/off_bad.json"
expect 1 "peak_bytes is" "$bin" validate "$sq" "$tmp/off_bad.json"
expect 1 'the plan is for "squeezenet1_0", not fig1' "$bin" validate "$net" "$tmp/off.json"
# the off-chip validator checks what the on-chip one does: the network's name, each
# tile's op, "seconds" a number, a known method (each was accepted, exit 0)
sed 's/"network": "squeezenet1_0"/"network": "resnet50"/' "$tmp/off.json" >"$tmp/off_bad.json"
expect 1 'the plan is for "resnet50", not squeezenet1_0' "$bin" validate "$sq" "$tmp/off_bad.json"
sed '0,/"op": "features.0"/s//"op": "nope"/' "$tmp/off.json" >"$tmp/off_bad.json"
expect 1 'op "nope", but the network.s tiling gives "features.0"' "$bin" validate "$sq" "$tmp/off_bad.json"
sed 's/"seconds": [0-9.e-]*/"seconds": "fast"/' "$tmp/off.json" >"$tmp/off_bad.json"
expect 1 "seconds: expected a number of seconds" "$bin" validate "$sq" "$tmp/off_bad.json"
sed 's/"method": "taa"/"method": "zzz"/' "$tmp/off.json" >"$tmp/off_bad.json"
expect 1 "method: expected taa, so-size" "$bin" validate "$sq" "$tmp/off_bad.json"
expect 0 '"format": "spadmap-offchip"' "$bin" offchip "$sq" --budget 64K --order peers --json
expect 0 "order lifetime" "$bin" offchip "$sq" --budget 64K --order lifetime
# every column of the tensor table has its unit, and the ticks it counts in are defined under it (issue 33)
expect 0 "tensor  *base (bytes)  *size (bytes)  *lifetime (ticks)  *tiles" "$bin" offchip "$sq" --budget 64K
expect 0 "ticks: sub-step u reads its input tiles at tick 2u+1" "$bin" offchip "$sq" --budget 64K
# spadmap layer's tile columns in binary units, as the rest (they were bare byte counts)
expect 0 "DRAM  *[0-9.]* [KM]iB  *[0-9.]* [KM]iB  *[0-9.]* [KM]iB" "$bin" layer "$r50" layer4.0.conv2 --arch cosa_baseline --method random
expect 2 "--order \"frob\": expected size, lifetime or peers" "$bin" offchip "$sq" --budget 64K --order frob
expect 2 "--method \"frob\"" "$bin" offchip "$sq" --budget 64K --method frob
expect 2 "--layout \"frob\"" "$bin" offchip "$sq" --budget 64K --layout frob
expect 2 "needs --budget" "$bin" offchip "$sq"
expect 0 "M_R 365568 <= 373248" "$bin" offchip "$sq" --budget M_R/4 --tiled-net "$tmp/tiled.json"
expect 0 "validator      valid" "$bin" solve "$tmp/tiled.json" --budget 373248
expect 1 "cannot be tiled under 1000 bytes" "$bin" offchip "$sq" --budget 1000 --tiled-net "$tmp/tiled2.json"
expect 0 "| squeezenet1_0 | 373248 |" "$bin" bench taa --repeat 1
check "bench taa: all eight paper networks validated" '[ "$(grep -c "| yes |" "$tmp/out")" -eq 8 ]'
# the gain split (issue 24; default nchw, rows, M_R/4): offsets vs objects, tile-awareness, total, and at M_R
check "bench taa: resnet's gain is all tile-awareness" 'grep -q "| resnet_v2_101 | +0.00% | -33.33% | -33.33% | 1605632 | 1605632 | 1605632 | +0.00% | +0.00% |" "$tmp/out"'
check "bench taa: inception v4's is all offsets" 'grep -q "| inception_v4 | -28.68% | +0.00% | -28.68% | 2134880 | 1724032 | 1724032 | -19.24% | +0.00% |" "$tmp/out"'
check "bench taa: TAA as published never above SO here" 'grep -q "above the best Shared Objects strategy on 0 of 8 networks and above offset-size on 0" "$tmp/out"'
mkdir "$tmp/nets" && cp "$data/networks/fsrcnn.json" "$tmp/nets/"
expect 0 "| fsrcnn | M_R/16 = 213248 | 8 | 4471 (56) | 3411968 (so-size) | 3411968 | 3261440 | +0.00% | -4.41% | -4.41% | 2809856 | yes |" "$bin" bench taa --budget-sweep --all --dir "$tmp/nets"
check "bench taa --budget-sweep: five budgets" '[ "$(grep -c "^| fsrcnn | M_R/" "$tmp/out")" -eq 5 ]'
expect 0 "| fsrcnn | 852992 | 8/8 | 57 | 1201 (56) | 3411968 (so-size) | 3411968 | 3261440 (size)" "$bin" bench taa --all --dir "$tmp/nets" --repeat 1
expect 0 "| fsrcnn | 852992 | 8/8 | 57 | 57 (1) | 3411968 (so-size) | 3411968 | 2809856 (size)" "$bin" bench taa --all --dir "$tmp/nets" --repeat 1 --tile-shape outer
expect 2 "drop --divisor" "$bin" bench taa --budget-sweep --divisor 2
expect 2 '--tile-shape "cols": expected rows or outer' "$bin" bench taa --tile-shape cols
# the tile shape rule travels with the off-chip plan and is validated
expect 0 "layout nchw, tiles cut outer" "$bin" offchip "$sq" --budget M_R/4 --tile-shape outer --out "$tmp/off_outer.json"
expect 0 "off-chip plan (taa), peak 1,140,576 bytes" "$bin" validate "$sq" "$tmp/off_outer.json"
sed 's/"tile_shape": "outer"/"tile_shape": "rows"/' "$tmp/off_outer.json" >"$tmp/off_bad.json"
expect 1 "(layout nchw, tiles cut rows) has 121 over 120" "$bin" validate "$sq" "$tmp/off_bad.json"
expect 2 '--tile-shape "cols": expected rows or outer' "$bin" offchip "$sq" --budget 64K --tile-shape cols
expect 2 "--divisor \"0\"" "$bin" bench taa --divisor 0
expect 2 "expected a positive divisor" "$bin" offchip "$sq" --budget M_R/0
expect 0 "on-chip        746,496 bytes" "$bin" offchip "$sq" --budget "M_P*0.5" # one budget grammar: every preset and form
# Names carrying terminal escapes (issue 13): every path prints them escaped
# ("x\x1b[2J"), never the raw ESC byte that would clear the user's terminal.
esc=$(printf '\033')
printf '{"format":"spadmap-network","version":1,"name":"x\\u001b[2J\\u001b[31mRED","tensors":[{"name":"in\\u001b[2J","shape":[4],"kind":"input"},{"name":"y","shape":[4],"kind":"output"}],"ops":[{"name":"op\\u001b]0;pwned\\u0007","type":"t","inputs":["in\\u001b[2J"],"outputs":["y"]}]}' >"$tmp/evil.json"
noesc() { nf=$2; check "$1: no raw ESC" '! grep -q "$esc" "$nf"'; }
expect 0 'network  x\\x1b\[2J\\x1b\[31mRED' "$bin" info "$tmp/evil.json"; noesc "info" "$tmp/out"
expect 0 'x\\x1b\[2J' "$bin" solve "$tmp/evil.json" --budget M_R --out "$tmp/evil-plan.json"; noesc "solve" "$tmp/out"
expect 0 'valid: .* on x\\x1b\[2J' "$bin" validate "$tmp/evil.json" "$tmp/evil-plan.json"; noesc "validate" "$tmp/out"
sed 's/"offset":[0-9]*/"offset":7/g' "$tmp/evil-plan.json" >"$tmp/evil-bad.json"
expect 1 '"in\\x1b\[2J" at \[7, 11) lies outside' "$bin" validate "$tmp/evil.json" "$tmp/evil-bad.json"; noesc "validate errors" "$tmp/out"
sed 's/"shape":\[4\],"kind":"input"/"shape":[4],"dtype":"int3","kind":"input"/' "$tmp/evil.json" >"$tmp/evil-dtype.json"
expect 1 'tensor "in\\x1b\[2J" is not one of' "$bin" info "$tmp/evil-dtype.json"; noesc "loader errors" "$tmp/out"
# the off-chip and cost tables too (offchip printed the raw name, cut at its 32nd byte)
expect 0 '^in\\x1b\[2J ' "$bin" offchip "$tmp/evil.json" --budget M_R; noesc "offchip" "$tmp/out"
expect 0 '^op\\x1b\]0;pwned\\x07 ' "$bin" cost "$tmp/evil.json" --budget M_R; noesc "cost" "$tmp/out"
# a long name keeps its distinctive end, as the explorer shows it (they all began "/features/features.")
sed 's/"name":"y"/"name":"\/features\/features.4\/block\/block.0\/block.0.0\/Conv_output_0"/; s/"outputs":\["y"\]/"outputs":["\/features\/features.4\/block\/block.0\/block.0.0\/Conv_output_0"]/' "$tmp/evil.json" >"$tmp/long.json"
expect 0 '^…block.0/block.0.0/Conv_output_0 ' "$bin" offchip "$tmp/long.json" --budget M_R
check "snapshot of evil.json" '"$bin" snapshot "$tmp/evil.json" --size 100x30 --out "$tmp/evil-screen.txt"'
noesc "snapshot" "$tmp/evil-screen.txt"
check "snapshot shows the name escaped" 'grep -q "x\\\\x1b\[2J" "$tmp/evil-screen.txt"'
# Inputs that never end or are not files: a clear error, bounded memory.
[ -r /dev/zero ] && expect 1 "/dev/zero: larger than the 256 MiB cap for network or DAG JSON files (stopped reading)" "$bin" info /dev/zero
expect 1 "is a directory" "$bin" info "$tmp"
# pack: minimalloc CSV in, offsets out; proofs; CSV errors with file:line:column and exit 1
printf 'id,lower,upper,size\nb0,0,3,4\nb1,2,5,8\nb2,4,6,4\nb3,0,2,8\n' >"$tmp/p.csv"
expect 0 "usage: spadmap pack" "$bin" pack --help
expect 0 "status         optimal" "$bin" pack "$tmp/p.csv" --out "$tmp/p.out.csv"
check "pack: solution CSV has offsets" '[ "$(head -n 1 "$tmp/p.out.csv")" = "id,lower,upper,size,offset" ]'
expect 0 "valid: .*height 12" "$bin" pack --check "$tmp/p.out.csv"
# a node limit decides the result (same nodes, same answer); a bad one is a usage error
expect 0 "status         optimal" "$bin" pack "$tmp/p.csv" --node-limit 1000
expect 2 '--node-limit "0": expected a node count' "$bin" pack "$tmp/p.csv" --node-limit 0
expect 2 'does not apply to --check' "$bin" pack --check "$tmp/p.out.csv" --node-limit 5
# bench pack --min-height: one row per CSV of a folder, the height minimised and checked
mkdir -p "$tmp/mh" && cp "$tmp/p.csv" "$tmp/mh/p.20.csv"
expect 0 '| p.20.csv | 4 | 12 | 12 | 12 | 0.0 % | optimal |' "$bin" bench pack --dir "$tmp/mh" --min-height --node-limit 1000
expect 2 'go with --dir DIR of minimalloc CSVs' "$bin" bench pack --min-height
expect 1 "exceeds the capacity 11" "$bin" pack --check "$tmp/p.out.csv" --capacity 11
expect 1 "status         infeasible" "$bin" pack "$tmp/p.csv" --capacity 11
expect 0 "status         found" "$bin" pack "$tmp/p.csv" --capacity 12 --method so-size
printf 'id,lower,upper,size,offset\nb0,0,3,4,0\nb1,2,5,8,2\n' >"$tmp/clash.csv"
expect 1 "overlap in time and address" "$bin" pack --check "$tmp/clash.csv"
expect 1 "no 'offset' column" "$bin" pack --check "$tmp/p.csv"
printf 'id,lower,size\nb0,0,4\n' >"$tmp/e1.csv"
expect 1 "e1.csv:1:1: the header has no 'upper' column" "$bin" pack "$tmp/e1.csv"
printf 'id,lower,upper,size\nb0,0,3,-4\n' >"$tmp/e2.csv"
expect 1 "e2.csv:2:8: expected a positive size" "$bin" pack "$tmp/e2.csv"
printf 'id,lower,upper,size\nb0,5,3,4\n' >"$tmp/e3.csv"
expect 1 "e3.csv:2:6: expected upper > lower" "$bin" pack "$tmp/e3.csv"
printf 'id,lower,upper,size\nb0,0,3x,4\n' >"$tmp/e4.csv"
expect 1 "e4.csv:2:6: expected an integer for 'upper', found \"3x\"" "$bin" pack "$tmp/e4.csv"
printf 'id,lower,upper,size\nb0,0,3\n' >"$tmp/e5.csv"
expect 1 "e5.csv:2:1: expected 4 fields as in the header, found 3" "$bin" pack "$tmp/e5.csv"
expect 1 "cannot" "$bin" pack "$tmp/nonexistent.csv"
expect 2 "--method \"frob\": expected one of" "$bin" pack "$tmp/p.csv" --method frob
expect 2 "--capacity \"-3\": expected a byte count from 1" "$bin" pack "$tmp/p.csv" --capacity -3
expect 2 "apply to a network" "$bin" pack "$tmp/p.csv" --budget M_P
expect 0 "height         1,806,336" "$bin" pack "$data/networks/densenet121.json" --budget M_P
expect 0 "allocator pack" "$bin" solve "$data/networks/densenet121.json" --budget M_P --allocator pack
expect 0 "non-compulsory 0 bytes" "$bin" solve "$data/networks/densenet121.json" --budget M_P --allocator pack
# every size solve prints has the exact count and the binary size (words.c), not only non-compulsory's
expect 0 "^compulsory     3,072 bytes (3.0 KiB)$" "$bin" solve "$data/networks/diamond.json" --budget M_R
expect 0 "^peak           10,240 bytes (10.0 KiB)$" "$bin" solve "$data/networks/diamond.json" --budget M_R
expect 0 "^footprint      10,240 bytes (10.0 KiB)$" "$bin" solve "$data/networks/diamond.json" --budget M_R
expect 0 "usage: spadmap bench pack" "$bin" bench pack --help
expect 0 "invalid solutions or errors: 0" "$bin" bench pack --network diamond --nets-only
# bench pack --dir: a folder of minimalloc CSVs, capacity from NAME.CAPACITY.csv
mkdir -p "$tmp/mm"
cp "$tmp/p.csv" "$tmp/mm/small.12.csv"
cp "$tmp/p.csv" "$tmp/mm/tight.11.csv"
expect 0 "small.12.csv | .* | 12 | found .* packing checked" "$bin" bench pack --dir "$tmp/mm"
expect 0 "tight.11.csv | .* | 11 | infeasible .* load over capacity" "$bin" bench pack --dir "$tmp/mm"
expect 2 "go with --dir DIR of minimalloc CSVs" "$bin" bench pack --minimalloc /bin/true --tight-only
expect 2 "not an executable file" "$bin" bench pack --dir "$tmp/mm" --minimalloc "$tmp/nonexistent"
# a spreadsheet's byte order mark; one prefix on engine messages
printf '\357\273\277id,lower,upper,size\nb0,0,3,4\n' > "$tmp/bom.csv"
expect 0 "status         optimal" "$bin" pack "$tmp/bom.csv"
printf 'id,lower,upper,size\n' > "$tmp/big.csv"
for i in 1 2 3 4 5; do echo "b$i,0,3,576460752303423488" >> "$tmp/big.csv"; done
expect 1 "^spadmap pack: the summed sizes overflow" "$bin" pack "$tmp/big.csv"
# Ctrl-C: the best packing so far is written, exit 130 (5,000 random buffers keep the search busy;
# lifetimes up to 200: those up to 60 are proven optimal in 1.6 s since the min-height rounds)
awk 'BEGIN { srand(7); print "id,lower,upper,size"; for (i = 0; i < 5000; i++) { l = int(rand() * 4000); printf "b%d,%d,%d,%d\n", i, l, l + 1 + int(rand() * 200), 1 + int(rand() * 1000) } }' > "$tmp/many.csv"
if hook_usable; then
  # (it was Ctrl-C after `sleep 2`, and the pack, proven optimal in 1.3 s, had ended: exit 0)
  expect_at int pack.exact 130 "stopped        by Ctrl-C: the best packing found is written" "$bin" pack "$tmp/many.csv" --time-limit 600 --out "$tmp/many.out.csv"
  expect 0 "valid: .*5000 buffers" "$bin" pack --check "$tmp/many.out.csv"
  # steps: Ctrl-C stops the functional check (it was ignored: 13 s, exit 0) and the
  # plan is printed with the check cancelled where it was (here step 3); exit 130
  expect_at int steps.check#3 130 "functional check: cancelled at step 3 of 22500" "$bin" layer "R=3,S=3,P=300,Q=300,C=64,K=64" --method steps-row
  # and the step plan (millions of steps take seconds) stops at its poll
  expect_at int steps.plan 130 "step plan cancelled at step 4096 of 22500" "$bin" layer "R=3,S=3,P=300,Q=300,C=64,K=64" --method steps-row
  # the plan of an ILP stopped by Ctrl-C is still checked (above); a second Ctrl-C
  # stops that check (the check clears the flag once, when it starts)
  expect_at int steps.exact,steps.check 130 "functional check: cancelled at step 1 of 22" "$bin" layer "R=3,S=3,P=8,Q=8,C=2048,K=1024,N=1,stride=1" --method steps-ilp --group-size 3 --time-limit 60
  check "steps-ilp: the first Ctrl-C stopped the ILP" 'grep -q "ILP: cancelled in" "$tmp/out"'
fi
# steps: durations past int64 are refused (they printed negative); a layer too large to
# simulate has its check skipped, not failed (it asked for 2 PiB: "functional check: functional check")
expect 1 "more than 2^63 cycles" "$bin" layer "R=1024,S=1024,P=1,Q=1,C=16384,K=16384,N=1" --method steps-s1 --cycles 1000000000,1000000000,1000000000
expect 0 "functional check: skipped (the layer is too large to simulate" "$bin" layer "R=1024,S=1024,P=1,Q=1,C=16384,K=16384,N=1" --method steps-s1
expect 0 '"functional_check":	"skipped (the layer is too large' "$bin" layer "R=1024,S=1024,P=1,Q=1,C=16384,K=16384,N=1" --method steps-s1 --json
# bench steps: an ILP past the columns it allows is refused, not a failed functional check
expect 0 "^20,2,0,.*,refused (too large),.*,ok$" "$bin" bench steps --inputs 20-20 --groups 2-2 --time-limit 1 --csv
expect 0 "functional check failed on 0; ILP refused (too large) on 1" "$bin" bench steps --inputs 20-20 --groups 2-2 --time-limit 1
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
