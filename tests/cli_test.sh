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
check "snapshot of evil.json" '"$bin" snapshot "$tmp/evil.json" --size 100x30 --out "$tmp/evil-screen.txt"'
noesc "snapshot" "$tmp/evil-screen.txt"
check "snapshot shows the name escaped" 'grep -q "x\\\\x1b\[2J" "$tmp/evil-screen.txt"'
# Inputs that never end or are not files: a clear error, bounded memory.
[ -r /dev/zero ] && expect 1 "/dev/zero: more than the 256 MiB limit" "$bin" info /dev/zero
expect 1 "is a directory" "$bin" info "$tmp"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
