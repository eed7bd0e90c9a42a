#!/bin/sh
# Timeloop as the referee: spadmap's mappings, exported with --export-timeloop,
# evaluated by NVIDIA's timeloop-model (v1.0) when it is on PATH; skipped (77)
# otherwise. Each mapping must be accepted, and Timeloop's cycles must be within
# a factor of RATIO_MAX of our cost model's. The default, 6, is the bound the two
# documented differences give (docs/timeloop.md): we add reads and writes where
# Timeloop takes the slower of the two (up to 2x), and on a level holding 1-byte
# inputs and 3-byte partial sums Timeloop counts every element as one byte word
# (up to 3x); the measured ratios are in docs/results/timeloop.md.
# usage: timeloop_model.sh SPADMAP DATA_DIR [--all]
#   --all: every bundled cosa arch x every ResNet-50 layer x (cosa, cosa-plus,
#   random) and a table (docs/results/timeloop.md); ARCHS and METHODS narrow it.
#   The default is a sample.
bin=$1; data=$2; all=$3
command -v timeloop-model >/dev/null 2>&1 || { echo "SKIP: timeloop-model is not on PATH"; exit 77; }
RATIO_MAX=${RATIO_MAX:-6}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
r50=$data/networks/resnet50.json
if [ "$all" = "--all" ]; then
  ops=$("$bin" layers --json "$r50" | sed -n 's/.*"op":[[:space:]]*"\(.*\)".*/\1/p')
  archs=${ARCHS:-"cosa_baseline cosa_4xpe cosa_sram"}
  methods=${METHODS:-"cosa cosa-plus random"}
else
  ops="conv1 layer1.0.conv2 layer3.0.conv1 layer4.0.conv2 fc"
  archs="cosa_baseline cosa_4xpe"
  methods="cosa random"
fi
pass=0; fail=0
printf '%-14s %-10s %-18s %12s %12s %7s\n' arch method op ours timeloop ratio
for arch in $archs; do
  for m in $methods; do
    for op in $ops; do
      d=$tmp/$arch.$m.$op
      if ! "$bin" layer "$r50" "$op" --arch "$arch" --method "$m" --json --export-timeloop "$d" >"$tmp/out.json" 2>"$tmp/err"; then
        echo "FAIL $arch $m $op: spadmap layer failed: $(head -1 "$tmp/err")"; fail=$((fail + 1)); continue
      fi
      ours=$(sed -n 's/.*"latency_cycles":[[:space:]]*\([0-9.e+]*\).*/\1/p' "$tmp/out.json")
      if ! (cd "$d" && timeloop-model arch.yaml prob.yaml map.yaml >out.txt 2>err.txt); then
        echo "FAIL $arch $m $op: timeloop-model rejected the mapping: $(grep -m1 -i error "$d/err.txt" "$d/out.txt")"
        fail=$((fail + 1)); continue
      fi
      tl=$(sed -n 's/^Cycles: \([0-9]*\).*/\1/p' "$d/timeloop-model.stats.txt" | head -1)
      if [ -z "$tl" ] || [ -z "$ours" ]; then
        echo "FAIL $arch $m $op: no cycles (ours \"$ours\", Timeloop \"$tl\")"; fail=$((fail + 1)); continue
      fi
      ratio=$(awk -v a="$ours" -v b="$tl" 'BEGIN { printf "%.3f", a / b }')
      printf '%-14s %-10s %-18s %12.0f %12s %7s\n' "$arch" "$m" "$op" "$ours" "$tl" "$ratio"
      if awk -v r="$ratio" -v k="$RATIO_MAX" 'BEGIN { exit !(r > k || r < 1 / k) }'; then
        echo "FAIL $arch $m $op: ours / Timeloop = $ratio, beyond a factor of $RATIO_MAX"; fail=$((fail + 1))
      else
        pass=$((pass + 1))
      fi
    done
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
