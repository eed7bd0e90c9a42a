#!/bin/sh
# --time-limit and Ctrl-C hold in every command that takes them, on large inputs
# (issue 28): each run returns within a generous margin (the limit + 5 s, or 3x,
# whichever is larger, plus twice what no limit covers: reading the input, and
# pack's first heuristic; this checks that the limit is held, it is no speed
# target), with the exit code its status says (0 with an answer, 3 at a limit
# without one, 130 on SIGINT), every stderr line "spadmap CMD: ", and the --out
# file, when written, valid (spadmap validate, pack --check). Inputs: a
# 30,000-op network from `bench scale`'s generator and a 60,000-buffer CSV; at
# those sizes the stages that did not poll the deadline overran by 5 to 40 s.
# usage: cli_limits.sh SPADMAP DATA_DIR TEST_DIR
bin=$1; data=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0; fail=0

# the inputs
if ! "$bin" bench scale --sizes 30000 --dir "$tmp/gen" --keep >/dev/null 2>&1 || [ ! -f "$tmp/gen/scale30008.json" ]; then
  echo "FAIL: bench scale did not generate the 30,000-op network"
  exit 1
fi
net=$tmp/gen/scale30008.json
awk 'BEGIN { srand(1); print "id,lower,upper,size"
  for (i = 0; i < 60000; i++) { lo = int(rand() * 120000)
    printf "%d,%d,%d,%d\n", i, lo, lo + 1 + int(rand() * 2000), 1 + int(rand() * 4096) } }' >"$tmp/big.csv"
big=$tmp/big.csv
layer=R=7,S=7,P=224,Q=224,C=512,K=1024,N=16

now() { date +%s.%N; }
# What no limit covers (reading the network, one simulation, the validator): a
# heuristic solve's time, measured once; twice it is added to the margin (a
# sanitizer build is several times slower at it, an optimised one 0.2 s).
t0=$(now)
"$bin" solve "$net" --budget M_R >/dev/null 2>&1
base=$(awk -v t0="$t0" -v t1="$(now)" 'BEGIN { printf "%.2f", t1 - t0 }')
# pack's too: its first heuristic always runs whole (an answer must exist), 0.5 s
# on the CSV in a release build, 5 s under ASan
t0=$(now)
"$bin" pack "$big" --method so-size >/dev/null 2>&1
base_pack=$(awk -v t0="$t0" -v t1="$(now)" 'BEGIN { printf "%.2f", t1 - t0 }')
extra=$base
# within START LIMIT: the seconds since START are at most max(LIMIT + 5, 3 LIMIT)
# (+ 2 extra: base, or base_pack for pack)
within() {
  awk -v t0="$1" -v t1="$(now)" -v l="$2" -v b="$extra" 'BEGIN { m = l + 5; if (3 * l > m) m = 3 * l
    el = t1 - t0; printf "%.2f", el; exit (el <= m + 2 * b ? 0 : 1) }'
}
ok() { pass=$((pass + 1)); }
bad() { # bad WHAT: a failure, with the run's streams
  fail=$((fail + 1))
  echo "FAIL ($1): $what"
  sed 's/^/  out| /' "$tmp/out" | tail -3
  sed 's/^/  err| /' "$tmp/err" | head -3
}

# A run's streams: stderr empty or one line per message, each "spadmap CMD: ";
# on exit 3 stdout is empty or says the limit came first (pack reports its
# status there: a result, "stopped at the time limit").
streams() { # streams CMD RC
  if [ -s "$tmp/err" ] && grep -qv "^spadmap $1: " "$tmp/err"; then bad "stderr has a line not beginning \"spadmap $1: \""; return 1; fi
  if [ "$2" -eq 3 ] && [ -s "$tmp/out" ] && ! grep -q "time limit" "$tmp/out"; then bad "stdout on exit 3 does not say the limit came first"; return 1; fi
  return 0
}

# The --out file: absent, or valid for its kind.
valid_out() { # valid_out KIND FILE
  [ -f "$2" ] || return 0
  case $1 in
  plan) "$bin" validate "$net" "$2" >"$tmp/vout" 2>&1 ;;
  csv) "$bin" pack --check "$2" >"$tmp/vout" 2>&1 ;;
  *) return 0 ;;
  esac
  if [ $? -ne 0 ]; then bad "the --out file is not valid: $(head -1 "$tmp/vout")"; return 1; fi
  return 0
}

# limit WANT_RC KIND CMD ARGS... : runs with --time-limit 1 (already in
# ARGS; $lim: the limits in all, 1 unless a bench runs several instances);
# WANT_RC 03: 0 with the --out file written, or 3 (the limit came first) without
limit() {
  want=$1; kind=$2; cmd=$3; shift 3
  what="spadmap $cmd $*"
  rm -f "$tmp/o.json" "$tmp/o.csv" "$tmp/o.txt"
  extra=$base
  case "$cmd $1" in pack* | "bench pack") extra=$base_pack ;; esac
  t0=$(now)
  timeout -k 5 60 "$bin" $cmd "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if ! el=$(within "$t0" "${lim:-1}"); then bad "took $el s, limit ${lim:-1} s"; return; fi
  if [ "$want" = 03 ]; then
    out=$tmp/o.json; [ "$kind" = csv ] && out=$tmp/o.csv
    if [ "$rc" -eq 0 ] && [ ! -f "$out" ]; then bad "exit 0 and no --out file"; return; fi
    if [ "$rc" -eq 3 ] && [ -f "$out" ]; then bad "exit 3 and an --out file"; return; fi
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { bad "exit $rc, wanted 0 or 3"; return; }
  elif [ "$rc" -ne "$want" ]; then bad "exit $rc, wanted $want"; return; fi
  if [ "$rc" -eq 3 ] && [ -f "$tmp/o.json" ]; then bad "exit 3 and an --out file"; return; fi
  streams "$cmd" "$rc" || return
  valid_out "$kind" "$tmp/o.json" || return
  valid_out csv "$tmp/o.csv" || return
  ok
}

# interrupt DELAY KIND CMD ARGS... : SIGINT after DELAY s; exit 130 within the
# margin; a plan command (KIND plan/csv) has its best answer so far on disk
interrupt() {
  delay=$1; kind=$2; cmd=$3; shift 3
  what="spadmap $cmd $* (SIGINT after $delay s)"
  rm -f "$tmp/o.json" "$tmp/o.csv" "$tmp/o.txt"
  extra=$base
  [ "$cmd" = pack ] && extra=$base_pack
  # a background job of a non-interactive shell ignores SIGINT: restore it
  env --default-signal=INT "$bin" $cmd "$@" </dev/null >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  sleep "$delay"
  t0=$(now)
  kill -INT "$pid" 2>/dev/null
  (sleep 60; kill -KILL "$pid" 2>/dev/null) &
  guard=$!
  wait "$pid"
  rc=$?
  kill "$guard" 2>/dev/null
  if ! el=$(within "$t0" 0); then bad "took $el s after SIGINT"; return; fi
  if [ "$rc" -ne 130 ]; then bad "exit $rc, wanted 130"; return; fi
  streams "$cmd" "$rc" || return
  case $kind in
  plan)
    if [ ! -f "$tmp/o.json" ]; then bad "no plan written"; return; fi
    valid_out plan "$tmp/o.json" || return ;;
  csv)
    if [ ! -f "$tmp/o.csv" ]; then bad "no solution written"; return; fi
    valid_out csv "$tmp/o.csv" || return ;;
  esac
  ls "$tmp" | grep -q '\.tmp' && { bad "a temporary file was left"; return; }
  ok
}

# --- the time limit: every command and bench that takes it ----------------------
# solve: the schedules that search (model building was not polled: mpmf-ilp,
# cosma's joint model and checkpoint bound, dnc's break nodes and segments), the
# exact M_P search for the budget, the pack allocator inside cosma's heuristics
for s in mpmf-ilp cosma dnc; do
  limit 0 plan solve "$net" --budget M_R --schedule "$s" --time-limit 1 --out o.json
done
limit 0 plan solve "$net" --budget M_P --schedule cosma --time-limit 1 --out o.json
limit 0 plan solve "$net" --budget M_H --schedule mpmf --replacement ilp --time-limit 1 --out o.json
# pack: best-heuristic (skyline), then the exact search (a node scans the part)
limit 0 csv pack "$big" --time-limit 1 --out o.csv
limit 03 csv pack "$net" --budget M_P --schedule mpmf --time-limit 1 --out o.csv
# info: the exact M_P search
limit 0 - info "$net" --time-limit 1
# layer: the MIPs, the oracle, the steps simulator and its functional check; a
# complete search stopped has no answer (3)
for m in cosa cosa-plus smartshuttle steps-row; do
  limit 0 - layer "$layer" --method "$m" --time-limit 1
done
limit 3 - layer "$layer" --method exhaustive --time-limit 1
# offchip at a quarter of M_R (9 s before: TAA's placement, O(tensors^2), and the
# validator were not polled): TAA stops, the Shared Objects plan stands (0); with
# --no-fallback there is none (3, unless TAA finished)
limit 0 plan offchip "$net" --budget M_R/4 --time-limit 1 --out o.json
limit 03 plan offchip "$net" --budget M_R/4 --no-fallback --time-limit 1 --out o.json
# the explorer's screen after the searching policies
limit 0 - snapshot "$net" --schedule cosma --time-limit 1 --out o.txt
# benches: each solve under the limit
# (two CSVs of 20,000 buffers at their lower bound, where skyline still runs: the
# exact search runs to the limit of each, 2 s in all)
mkdir -p "$tmp/csvs" && head -20001 "$big" >"$tmp/csvs/part.csv"
lb=$("$bin" pack "$tmp/csvs/part.csv" --method so-size | awk '/^lower bound/ { gsub(",", "", $3); print $3 }')
cp "$tmp/csvs/part.csv" "$tmp/csvs/again.$lb.csv"
mv "$tmp/csvs/part.csv" "$tmp/csvs/part.$lb.csv"
lim=2; limit 0 - bench pack --dir "$tmp/csvs" --time-limit 1; lim=1
limit 0 - bench steps --inputs 12-12 --groups 10-10 --time-limit 1

# --- Ctrl-C: exit 130 soon after, the best answer so far written ----------------
if env --default-signal=INT true 2>/dev/null; then
  for s in mpmf-ilp cosma dnc; do
    interrupt 1 plan solve "$net" --budget M_R --schedule "$s" --out o.json
  done
  interrupt 1 csv pack "$big" --out o.csv
  interrupt 0.3 - info "$net" --time-limit none
  interrupt 0.5 - layer "$layer" --method cosa-plus
  interrupt 1 - snapshot "$net" --schedule dnc --out o.txt
  interrupt 1 - offchip "$net" --budget M_R/4 --out o.json
  interrupt 1 - sweep "$net"
else
  echo "note: env --default-signal is missing (coreutils < 8.31): the SIGINT cases are skipped"
fi

echo "cli_limits: $pass passed, $fail failed (margin: the limit + 5 s, + $base s x 2 for reading the input, $base_pack s x 2 for pack)"
[ "$fail" -eq 0 ]
