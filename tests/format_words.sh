#!/bin/sh
# One vocabulary (issue 33): numbers become text through tui/words.c (Words_count, Words_energy,
# Words_bytes, Words_figure, Words_seconds, Words_gap) or App_bytes, never through a %g or %e
# conversion that prints "1.29069e+06 cycles". This fails listing every string literal in tui/
# whose format has a %g/%e (any flags, width or precision), unless the allow-list says why
# that figure is for a machine (CSV, JSON, SVG) or owned elsewhere.
# usage: format_words.sh SOURCE_DIR
src=${1:-.}
cd "$src" || exit 2
[ -d tui ] || { echo "format_words: no tui/ under $src"; exit 2; }

# FILE|a substring of the offending line  -- why it may keep %g/%e
allow='
tui/bench/cli_bench_layer.c|%s,%s,%s,%d,%.3f,%.3f,%.6g
tui/bench/cli_bench_layer.c|%s,%s,%s,%d,%s,%.3f,%.3f,%.6g
tui/bench/cli_bench_pack.c|--timeout=%gs
tui/lesson_state.c|%s*%g
tui/lesson_state.c| x %g
tui/lesson_state.c|%.15g
'
# Why each entry stays:
#  cli_bench_layer.c %.6g rows: the --csv output of bench layer (a machine format, read back by scripts).
#  cli_bench_pack.c --timeout=%gs: an argument passed to the minimalloc binary, not text for a reader.
#  lesson_state.c: lesson --check's exact values and budget factors; the lessons module is owned
#    by the lesson work (issue 33's lesson part) and quotes the exact number beside the rounded one.
# Sizes are binary (KiB, MiB) in text everywhere; the one decimal unit left is bench shuttle's MB
# (tui/bench/cli_bench_shuttle.c), because it is compared against SmartShuttle's Table II, printed in MB.

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# string literals only; "%%" is a literal percent sign, so it is dropped before looking for conversions
find tui -name '*.c' -o -name '*.h' | sort | xargs awk -v allow="$allow" '
BEGIN { na = split(allow, rows, "\n"); for (i = 1; i <= na; i++) if (split(rows[i], p, "|") >= 2) { af[i] = p[1]; as[i] = substr(rows[i], length(p[1]) + 2) } }
{
  line = $0; lits = ""
  while (match(line, /"([^"\\]|\\.)*"/)) { lits = lits substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH) }
  gsub(/%%/, "", lits)
  if (lits !~ /%[-+ #0-9.*]*[gGeE]/) next
  for (i = 1; i <= na; i++) if (af[i] == FILENAME && index($0, as[i])) next
  print FILENAME ":" FNR ":" $0
}' >"$tmp"
if [ -s "$tmp" ]; then
  echo "format_words: these print a figure with %g/%e; use tui/words.c (Words_count, Words_energy, Words_bytes, Words_figure):"
  cat "$tmp"
  exit 1
fi

# A raw figure beside its unit (issue 33, "one formatter"): an integer or fixed-point conversion
# followed by a size, time-of-work or energy word ("%lld bytes", "%.1f KiB", "%lld cycles",
# "%.2f pJ", "%lld MACs") prints what Words_count / Words_bytes / Words_energy would word;
# this fails on every such literal in tui/ unless the second allow-list says why it stays.
allow_raw='
tui/bench/cli_bench_scale.c|%.0f MiB each
tui/bench/cli_bench_scale.c|%.0f MiB%s%s
tui/bench/cli_bench_shuttle.c|MACs/access
tui/cli/cli_chunks.c|%lld bytes, span %lld..%lld
tui/cli/cli_common.c|%s%s %zu MiB
tui/cli/cli_layer.c|%.3f pJ/MAC
tui/layer_view.c|%.2f pJ/MAC
tui/cli/cli_lesson.c|path of %zu bytes
tui/lesson_load.c|a path of %zu bytes
'
# Why each entry stays:
#  cli_bench_scale.c: the RSS column of bench scale in whole MiB, the unit of docs/results' tables it fills.
#  cli_bench_shuttle.c, cli_layer.c, layer_view.c: rates (MACs per DRAM access, pJ per MAC) with their
#    own decimals, the units SmartShuttle's and CoSA's tables use; Words has no rate form.
#  cli_chunks.c: chunks prints exact byte offsets and sizes (addresses to read back, tests/cli_test.sh).
#  cli_common.c: the file size caps, whole MiB by definition (--max-file-mib).
#  cli_lesson.c, lesson_load.c: the length of a path in bytes, not a size of data.
find tui -name '*.c' -o -name '*.h' | sort | xargs awk -v allow="$allow_raw" '
BEGIN { na = split(allow, rows, "\n"); for (i = 1; i <= na; i++) if (split(rows[i], p, "|") >= 2) { af[i] = p[1]; as[i] = substr(rows[i], length(p[1]) + 2) } }
{
  line = $0; lits = ""
  while (match(line, /"([^"\\]|\\.)*"/)) { lits = lits substr(line, RSTART, RLENGTH) "\001"; line = substr(line, RSTART + RLENGTH) }
  gsub(/%%/, "", lits)
  # a unit word after an optional space, or a unit letter attached ("%.2fK", "%lldB"); "C=%lld K=%lld"
  # names dimensions, not sizes
  unit = "( ?(bytes|KiB|MiB|GiB|KB|MB|GB|cycles|pJ|nJ|µJ|mJ|J|MACs)|[BKMG])([^A-Za-z=]|$)"
  if (lits !~ ("%[-+ #0-9]*(ll|l|z|j|h)?[diu]" unit) && lits !~ ("%[-+ #0-9]*(\\.[0-9]+)?f" unit)) next
  for (i = 1; i <= na; i++) if (af[i] == FILENAME && index($0, as[i])) next
  print FILENAME ":" FNR ":" $0
}' >"$tmp"
if [ -s "$tmp" ]; then
  echo "format_words: these print a raw figure beside its unit; use tui/words.c (Words_count, Words_bytes, Words_energy):"
  cat "$tmp"
  exit 1
fi
# The allow-lists must not go stale: every entry still names a line that exists.
printf '%s\n' "$allow" "$allow_raw" | while IFS='|' read -r af as; do
  [ -n "$af" ] || continue
  grep -qF -- "$as" "$af" 2>/dev/null || echo "format_words: stale allow-list entry $af|$as"
done >"$tmp"
if [ -s "$tmp" ]; then cat "$tmp"; exit 1; fi
echo "format_words: no %g/%e and no raw figure beside its unit outside the allow-lists"
