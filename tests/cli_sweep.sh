#!/bin/sh
# spadmap sweep below M_R, with --arch, --plot, and split into jobs.
#   cli_sweep.sh SPADMAP DATA_DIR          the CSV columns, the budgets, the plot, bad input
#   cli_sweep.sh SPADMAP DATA_DIR jobs     --jobs run by GNU parallel, merged: byte-identical to
#                                          the serial --csv (exit 77, skipped, without parallel)
bin=$1; data=$2; mode=${3:-}
. "$(dirname "$0")/expect.sh"
fs=$data/networks/fsrcnn.json
dia=$data/networks/diamond.json
# fsrcnn: M_R = M_P = 3,411,968 bytes
sweep="--from M_R/8 --to M_P*2 --points 3 --arch cosa_baseline --method random"

if [ "$mode" = jobs ]; then
  if ! command -v parallel >/dev/null; then echo "cli_sweep jobs: skipped, GNU parallel is not installed"; exit 77; fi
  # shellcheck disable=SC2086
  "$bin" sweep "$fs" $sweep --csv >"$tmp/serial.csv" || bad "serial sweep"
  # shellcheck disable=SC2086
  expect 0 "wrote $tmp/j/jobs.txt: 6 jobs" "$bin" sweep "$fs" $sweep --jobs "$tmp/j"
  [ "$(wc -l <"$tmp/j/jobs.txt")" -eq 6 ] && ok || bad "jobs.txt: 6 lines"
  expect 1 "job 1's result: .*point-00001.csv" "$bin" sweep --merge "$tmp/j"  # not run yet
  (cd / && parallel -j2 --halt now,fail=1 <"$tmp/j/jobs.txt") || bad "parallel ran the jobs with a failure"
  "$bin" sweep --merge "$tmp/j" >"$tmp/merged.csv" || bad "merge"
  cmp "$tmp/serial.csv" "$tmp/merged.csv" && ok || bad "the merged CSV differs from the serial one"
  [ "$(wc -l <"$tmp/merged.csv")" -eq $((1 + 6 * 32)) ] && ok || bad "merged: a header and 6 x 32 rows"
  # the same without an arch, and with --params: one writer, the same bytes
  "$bin" sweep "$dia" --from M_R/2 --points 2 --params --csv >"$tmp/s2.csv" || bad "serial diamond"
  "$bin" sweep "$dia" --from M_R/2 --points 2 --params --jobs "$tmp/k" >/dev/null || bad "jobs diamond"
  parallel -j2 <"$tmp/k/jobs.txt" || bad "parallel diamond"
  "$bin" sweep --merge "$tmp/k" --out "$tmp/m2.csv" && cmp "$tmp/s2.csv" "$tmp/m2.csv" && ok || bad "diamond: merged differs"
  # a job's file tampered with: refused, naming it
  sed -i '2s/^[0-9]*/7/' "$tmp/k/point-00002.csv"
  expect 1 "point-00002.csv: a row that is not budget" "$bin" sweep --merge "$tmp/k"
  echo "cli_sweep jobs: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
fi

# shellcheck disable=SC2086
"$bin" sweep "$fs" $sweep --csv >"$tmp/s.csv" || bad "sweep --csv"
head -1 "$tmp/s.csv" | grep -qx "budget,schedule,replacement,allocator,traffic,spills,peak,latency_cycles,energy_pj,dram_bytes" && ok || bad "header: $(head -1 "$tmp/s.csv")"
# budgets: M_R/8, M_R/4, M_R/2 (tiled), then M_R, 1.5 M_R, 2 M_P
b=$(cut -d, -f1 "$tmp/s.csv" | sed 1d | uniq | tr '\n' ' ')
[ "$b" = "426496 852992 1705984 3411968 5117952 6823936 " ] && ok || bad "budgets: $b"
# every row has a plan and its cost; below M_R more traffic than at M_R (best of each budget)
[ "$(awk -F, 'NR > 1 && ($8 == "" || $8 <= 0) {n++} END {print n + 0}' "$tmp/s.csv")" = 0 ] && ok || bad "a point without cycles"
best() { awk -F, -v b="$1" '$1 == b && (m == "" || $5 < m) {m = $5} END {print m}' "$tmp/s.csv"; }
[ "$(best 426496)" -gt "$(best 3411968)" ] && ok || bad "M_R/8's best traffic $(best 426496) not above M_R's $(best 3411968)"
# the table marks the tiled budgets
# shellcheck disable=SC2086
expect 0 "416.5 KiB (tiled)" "$bin" sweep "$fs" $sweep
# the plot: axes with units, ticks, a legend line per replacement policy, M_R = M_P marked, the tiled region
# shellcheck disable=SC2086
expect 0 "wrote $tmp/p.svg: latency and energy against the budget, 6 budgets" "$bin" sweep "$fs" $sweep --plot "$tmp/p.svg"
for want in "scratchpad budget (bytes, log scale" "network latency (cycles" "network energy (mJ)" "M_R = M_P 3.25M" "below M_R: the tiled network" ">belady<" ">lru<" ">size-aware<" ">greedy<" ">512K<" ">1M<" ">2M<" ">4M<"; do
  grep -q -- "$want" "$tmp/p.svg" && ok || bad "plot: no \"$want\""
done
[ "$(grep -c '<polyline' "$tmp/p.svg")" -eq 8 ] && ok || bad "plot: 4 lines in each of 2 panels"
if command -v xmllint >/dev/null; then xmllint --noout "$tmp/p.svg" && ok || bad "plot: not well-formed XML"; fi
expect 0 "wrote $tmp/t.svg: traffic" "$bin" sweep "$dia" --plot "$tmp/t.svg"
grep -q "non-compulsory traffic (bytes" "$tmp/t.svg" && ok || bad "plot without --arch: traffic"
# the ticks in the one vocabulary (words.c): bytes in round KiB steps, cycles grouped, never raw or decimal-in-binary
for want in ">10K<" ">20K<" ">40K<" ">M_R 10K<" "K = KiB, M = MiB"; do
  grep -q -- "$want" "$tmp/t.svg" && ok || bad "traffic plot: no \"$want\""
done
grep -q ">9.77K<" "$tmp/t.svg" && bad "traffic plot: a decimal step in binary units (9.77K)" || ok
grep -q ">5,000,000<" "$tmp/p.svg" && ok || bad "latency plot: ticks not grouped counts"
grep -Eq ">[0-9.]+k<|k = 1000" "$tmp/p.svg" && bad "latency plot: decimal k ticks (20k)" || ok
[ "$(grep -c '<polyline' "$tmp/t.svg")" -eq 4 ] && ok || bad "plot without --arch: one panel of 4 lines"
# a --to under M_R ends there: the halving steps under it, then --to (no rows past it)
"$bin" sweep "$fs" --from M_R/8 --to M_R/3 --csv >"$tmp/low.csv" || bad "sweep --to M_R/3"
[ "$(cut -d, -f1 "$tmp/low.csv" | sed 1d | sort -un | tr '\n' ' ')" = "426496 852992 1137323 " ] && ok ||
  bad "--to M_R/3: budgets $(cut -d, -f1 "$tmp/low.csv" | sed 1d | sort -un | tr '\n' ' ')"
expect 0 "x 1 budget from" "$bin" sweep "$dia" --to M_R
# bad input
expect 2 "--method maps layers onto an --arch" "$bin" sweep "$fs" --method random
expect 2 '--to wants a size (M_P\*2, 4M) or a factor from 1 to 100 (got "0.5")' "$bin" sweep "$fs" --to 0.5
expect 2 "expected a positive divisor" "$bin" sweep "$fs" --from M_R/0
expect 2 "must be above --from" "$bin" sweep "$fs" --from M_R --to M_R/2
expect 2 "must be above --from (512.0 KiB); one budget alone is --budget SIZE" "$bin" sweep "$fs" --from 512K --to 512K
expect 2 "--budget (one budget) goes without" "$bin" sweep "$fs" --budget M_R --from M_R/2
expect 2 "--jobs writes the jobs only" "$bin" sweep "$fs" --jobs "$tmp/x" --csv
expect 2 "takes no network" "$bin" sweep "$fs" --merge "$tmp"
expect 1 "jobs.txt: cannot open" "$bin" sweep --merge "$tmp/none"
expect 1 "cannot create the folder" "$bin" sweep "$dia" --jobs /proc/nope/x
echo "cli_sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
