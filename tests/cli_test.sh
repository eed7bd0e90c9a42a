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
expect 1 "expected tensor" "$bin" validate "$net" "$tmp/off.json"
expect 0 '"format": "spadmap-offchip"' "$bin" offchip "$sq" --budget 64K --order peers --json
expect 0 "order lifetime" "$bin" offchip "$sq" --budget 64K --order lifetime
expect 2 "--order \"frob\": expected size, lifetime or peers" "$bin" offchip "$sq" --budget 64K --order frob
expect 2 "--method \"frob\"" "$bin" offchip "$sq" --budget 64K --method frob
expect 2 "--layout \"frob\"" "$bin" offchip "$sq" --budget 64K --layout frob
expect 2 "needs --budget" "$bin" offchip "$sq"
expect 0 "M_R 365568 <= 373248" "$bin" offchip "$sq" --budget M_R/4 --tiled-net "$tmp/tiled.json"
expect 0 "validator      valid" "$bin" solve "$tmp/tiled.json" --budget 373248
expect 1 "cannot be tiled under 1000 bytes" "$bin" offchip "$sq" --budget 1000 --tiled-net "$tmp/tiled2.json"
expect 0 "| squeezenet1_0 | 373248 |" "$bin" bench taa --repeat 1
check "bench taa: all eight paper networks validated" '[ "$(grep -c "| yes |" "$tmp/out")" -eq 8 ]'
expect 2 "--divisor \"0\"" "$bin" bench taa --divisor 0
expect 2 "expected bytes, M_R or M_R/N" "$bin" offchip "$sq" --budget M_R/0
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
