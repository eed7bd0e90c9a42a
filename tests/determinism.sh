#!/bin/sh
# The same command with the same inputs gives the same bytes, on an idle machine
# and on a busy one (issue 32). Work limits decide what the solvers return: MIP
# rounds capped in GLPK iterations and nodes (layer --method cosa-plus, bench
# layer), the offloading steps' search in nodes split over two fixed lanes
# (bench steps), the cosma pipeline's stage shares on the work clock (solve
# --schedule cosma); the wall clock only stops a run early, and says so.
#
# Each command runs twice: alone, then with a busy loop on every core beside it
# (started here and killed by pid). The outputs are compared byte for byte with
# the timing fields blanked. The work is chosen to bind (a cap, a node budget, a
# stage share ends each solve) and the wall-clock stops are far above it
# (--wall-limit), so what is compared is
# what the work decides, not whether the machine was fast enough.
# usage: determinism.sh SPADMAP DATA_DIR
bin=$1; data=$2
tmp=$(mktemp -d) || exit 1
busy=""
stop_busy() {
  for p in $busy; do kill "$p" 2>/dev/null; done
  for p in $busy; do wait "$p" 2>/dev/null; done
  busy=""
}
trap 'stop_busy; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
cd "$tmp" || exit 1
pass=0; fail=0

# a two-layer network for bench layer (its layers' MIP rounds end at the work cap)
cat >net.json <<'EOF'
{"format": "spadmap-network", "version": 1, "name": "two_convs",
 "tensors": [
  {"name": "x", "shape": [1, 16, 28, 28], "dtype": "int8", "kind": "input"},
  {"name": "a.w", "shape": [32, 16, 3, 3], "dtype": "int8", "kind": "param"},
  {"name": "a", "shape": [1, 32, 28, 28], "dtype": "int8"},
  {"name": "b.w", "shape": [64, 32, 1, 1], "dtype": "int8", "kind": "param"},
  {"name": "b", "shape": [1, 64, 28, 28], "dtype": "int8"}],
 "ops": [
  {"name": "a", "type": "conv2d", "inputs": ["x", "a.w"], "outputs": ["a"],
   "attrs": {"kernel": [3, 3], "stride": [1, 1], "padding": [1, 1], "groups": 1}},
  {"name": "b", "type": "conv2d", "inputs": ["a", "b.w"], "outputs": ["b"],
   "attrs": {"kernel": [1, 1], "stride": [1, 1], "padding": [0, 0], "groups": 1}}]}
EOF

# The runs. Timing fields are blanked by `blank`: "1.23 s", "246 ms", "(3.155 s)",
# bench layer's seconds columns (CSV 5 and 6), bench steps' (CSV 10).
run_all() { # $1: suffix of the output files
  "$bin" layer 7_112_3_64_2 --method cosa-plus --wall-limit 600 >"layer.$1" 2>&1
  echo "exit $?" >>"layer.$1"
  "$bin" bench layer net.json --method cosa-plus --random 100 --wall-limit 600 --csv >"blayer.$1" 2>&1
  echo "exit $?" >>"blayer.$1"
  "$bin" bench steps --inputs 9-9 --groups 2-4 --time-limit 1 --wall-limit 600 --csv >"steps.$1" 2>&1
  echo "exit $?" >>"steps.$1"
  "$bin" solve "$data/networks/nasnet_a.json" --budget M_H --schedule cosma --time-limit 3 --wall-limit 600 \
    >"cosma.$1" 2>&1
  echo "exit $?" >>"cosma.$1"
}
blank() {
  sed -E 's/[0-9][0-9.,]* ?(ms|s|us)\b/T/g' "$1" |
    awk -F, -v f="$1" 'BEGIN { OFS = "," }
      f ~ /^blayer/ && NF > 6 { $5 = "T"; $6 = "T" }
      f ~ /^steps/ && NF > 10 { $10 = "T" }
      { print }'
}

run_all idle
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
i=0
while [ "$i" -lt "$cores" ]; do
  sh -c 'while :; do :; done' &
  busy="$busy $!"
  i=$((i + 1))
done
run_all busy
stop_busy

for k in layer blayer steps cosma; do
  blank "$k.idle" >"$k.idle.b"
  blank "$k.busy" >"$k.busy.b"
  if ! grep -q "^exit 0$" "$k.idle"; then
    echo "FAIL: $k: the idle run failed:"; cat "$k.idle"; fail=$((fail + 1))
  elif cmp -s "$k.idle.b" "$k.busy.b"; then
    pass=$((pass + 1))
  else
    echo "FAIL: $k: the output under load differs from the idle one:"
    diff "$k.idle.b" "$k.busy.b" | head -20
    fail=$((fail + 1))
  fi
done
# the runs did bind their work limits (else the comparison shows nothing)
grep -q "work cap" layer.idle || { echo "FAIL: layer: no MIP round ended at the work cap"; fail=$((fail + 1)); }
grep -q "^9,2,.*,timeout," steps.idle || { echo "FAIL: steps: 9x9 G=2 was not stopped by its node budget"; fail=$((fail + 1)); }
grep -q "not proven" cosma.idle || { echo "FAIL: cosma: nasnet_a at M_H was not stopped by its stage budgets"; fail=$((fail + 1)); }
echo "determinism: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
