#!/bin/sh
# The command line: exit codes (0 ok, 1 invalid input or plan, 2 usage) and messages.
# usage: cli_test.sh SPADMAP DATA_DIR TEST_DIR
bin=$1; data=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
# expect CODE PATTERN CMD...: runs CMD, checks the exit code and that stdout+stderr matches PATTERN
expect() {
  code=$1; pattern=$2; shift 2
  "$@" >"$tmp/out" 2>&1
  rc=$?
  if [ "$rc" -ne "$code" ]; then
    echo "FAIL (exit $rc, wanted $code): $*"; sed 's/^/  | /' "$tmp/out" | head -5; fail=$((fail + 1))
  elif ! grep -q -- "$pattern" "$tmp/out"; then
    echo "FAIL (no \"$pattern\"): $*"; sed 's/^/  | /' "$tmp/out" | head -5; fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
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
expect 2 "budget \"lots\"" "$bin" solve "$net" --budget lots
expect 2 "unknown schedule policy \"nope\"" "$bin" solve "$net" --budget M_R --schedule nope
expect 0 "schedule dnc" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a1,a4 --time-limit 2
expect 2 "break node \"nope\": no such op" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a1,nope
expect 2 "break node \"a3\" is not a descendant of \"a2\"" "$bin" solve "$net" --budget M_R --schedule dnc --break-nodes a2,a3
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
# the joint policy and the paper's model as written
dia=$data/networks/diamond.json
expect 0 "solver         optimal" "$bin" solve "$dia" --budget M_R --schedule cosma
expect 0 "schedule cosma, replacement cosma, allocator cosma" "$bin" solve "$dia" --budget M_P --schedule cosma --model paper
expect 2 "--model \"frob\": expected ours or paper" "$bin" solve "$dia" --budget M_R --schedule cosma --model frob
expect 1 "use the cosma pipeline" "$bin" solve "$data/networks/densenet121.json" --budget M_R --schedule cosma --model paper
# pack: minimalloc CSV in, offsets out; proofs; CSV errors with file:line:column and exit 1
printf 'id,lower,upper,size\nb0,0,3,4\nb1,2,5,8\nb2,4,6,4\nb3,0,2,8\n' >"$tmp/p.csv"
expect 0 "usage: spadmap pack" "$bin" pack --help
expect 0 "status         optimal" "$bin" pack "$tmp/p.csv" --out "$tmp/p.out.csv"
check "pack: solution CSV has offsets" '[ "$(head -n 1 "$tmp/p.out.csv")" = "id,lower,upper,size,offset" ]'
expect 0 "valid: .*height 12" "$bin" pack --check "$tmp/p.out.csv"
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
expect 2 "--capacity \"-3\": expected a positive" "$bin" pack "$tmp/p.csv" --capacity -3
expect 2 "apply to a network" "$bin" pack "$tmp/p.csv" --budget M_P
expect 0 "height         1,806,336" "$bin" pack "$data/networks/densenet121.json" --budget M_P
expect 0 "allocator pack" "$bin" solve "$data/networks/densenet121.json" --budget M_P --allocator pack
expect 0 "non-compulsory 0 bytes" "$bin" solve "$data/networks/densenet121.json" --budget M_P --allocator pack
expect 0 "usage: spadmap bench pack" "$bin" bench pack --help
expect 0 "invalid solutions or errors: 0" "$bin" bench pack --network diamond --nets-only
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
