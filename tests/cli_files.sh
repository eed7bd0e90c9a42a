#!/bin/sh
# Files at the edges (issue 28), in three parts, each its own ctest:
#   caps        every kind of input file has its own size cap: a file over it is
#               refused from its size, in one line naming the cap and the kind;
#               readers that sniff a file's format keep memory bounded too
#   outputs     every output file (--out, --tiled-net, --csv, --export-timeloop)
#               on /dev/full, a directory and a path in a missing folder, and
#               stdout on /dev/full: exit 1, one line on stderr, nothing on stdout
#               (solve printed its summary, then failed to write the plan)
#   unreadable  unreadable networks, plans, architectures and CSVs, and an --out
#               in a folder the user cannot write: exit 1 with the reason. As
#               root (who reads anything) the runs drop to nobody with setpriv
#               or runuser; skipped (77) when neither can.
# Every failing case: exit 1, stdout empty, exactly one line on stderr that
# starts "spadmap CMD: " and matches the expected words.
# usage: cli_files.sh SPADMAP DATA_DIR TEST_DIR caps|outputs|unreadable
bin=$1; data=$2; tests=$3; part=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
net=$data/networks/chain.json
dag=$tests/data/dag/diamond_dag.json
csv=$tests/fuzz/seeds/csv/small.csv
pass=0; fail=0

# fails CODE CMD PATTERN ARGS...: "$bin" ARGS exits CODE, prints nothing on stdout and
# one line on stderr, "spadmap CMD: ..." matching PATTERN (grep -E)
fails() {
  code=$1; cmd=$2; pattern=$3; shift 3
  timeout 120 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  why=""
  [ "$rc" -eq "$code" ] || why="exit $rc, expected $code"
  [ -s "$tmp/out" ] && why="$why; stdout not empty: $(head -c 200 "$tmp/out")"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || why="$why; $(wc -l <"$tmp/err") lines on stderr"
  grep -q "^spadmap $cmd: " "$tmp/err" || why="$why; stderr does not begin 'spadmap $cmd: '"
  grep -Eq -- "$pattern" "$tmp/err" || why="$why; stderr does not match '$pattern'"
  if [ -z "$why" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $*: $why"
    sed 's/^/    stderr: /' "$tmp/err" | head -3
  fi
}
# the same, with stdout going to /dev/full (whatever the command printed is lost)
fails_full() {
  code=$1; cmd=$2; pattern=$3; shift 3
  timeout 120 "$@" </dev/null >/dev/full 2>"$tmp/err"
  rc=$?
  why=""
  [ "$rc" -eq "$code" ] || why="exit $rc, expected $code"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || why="$why; $(wc -l <"$tmp/err") lines on stderr"
  grep -Eq -- "^spadmap $cmd: $pattern" "$tmp/err" || why="$why; stderr does not match 'spadmap $cmd: $pattern'"
  if [ -z "$why" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $* >/dev/full: $why"; cat "$tmp/err"; fi
}
done_part() {
  echo "cli_files $part: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}

# peak resident memory (KiB) of "$@", or nothing without GNU time
peak_kib() { /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >/dev/null 2>&1 </dev/null; tail -1 "$tmp/rss"; }

case "$part" in
caps)
  # sparse files: a size without the disk or the time to write it
  big() { printf '%s' "$3" >"$1" && truncate -s "$2" "$1"; }
  big net.json 300M
  fails 1 info "net\.json: 300\.0 MiB is larger than the 256 MiB cap for network or DAG JSON files$" "$bin" info net.json
  fails 1 import "net\.json: 300\.0 MiB is larger than the 256 MiB cap for network or DAG JSON files$" "$bin" import net.json
  big model.onnx 1100M
  fails 1 info "model\.onnx: 1100\.0 MiB is larger than the 1024 MiB cap for ONNX model files$" "$bin" info model.onnx
  big plan.json 300M '{"format": "spadmap-plan"'
  fails 1 validate "plan\.json: 300\.0 MiB is larger than the 256 MiB cap for plan files$" "$bin" validate "$net" plan.json
  fails 1 snapshot "plan\.json: 300\.0 MiB is larger than the 256 MiB cap for plan files$" "$bin" snapshot "$net" --plan plan.json
  big off.json 300M '{"format": "spadmap-offchip"'
  fails 1 validate "off\.json: 300\.0 MiB is larger than the 256 MiB cap for off-chip plan files$" "$bin" validate "$net" off.json
  big arch.json 300M
  fails 1 layer "arch\.json: 300\.0 MiB is larger than the 1 MiB cap for architecture files$" "$bin" layer 3_14_16_16_1 --arch arch.json
  big arch2.json 2M # under the old single cap (256 MiB): it was read whole, then refused as JSON
  fails 1 layer "arch2\.json: 2\.0 MiB is larger than the 1 MiB cap for architecture files$" "$bin" layer 3_14_16_16_1 --arch arch2.json
  big in.csv 300M
  fails 1 pack "in\.csv: 300\.0 MiB is larger than the 128 MiB cap for CSV files$" "$bin" pack in.csv
  big lesson.json 2M
  fails 1 lesson "lesson\.json: 2\.0 MiB is larger than the 1 MiB cap for lesson files$" "$bin" lesson "$tmp/lesson.json" --out l.txt
  # a pipe that never ends is cut at its kind's cap, not the largest one
  fails 1 layer "larger than the 1 MiB cap for architecture files \(stopped reading\)$" sh -c "head -c 5000000 /dev/zero | \"$bin\" layer 3_14_16_16_1 --arch /dev/stdin"
  # --help states the caps of the files each command reads
  "$bin" layer --help | grep -q "architecture 1 MiB" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: layer --help states no arch cap"; }
  "$bin" validate --help | grep -q "plan 256 MiB, off-chip plan 256 MiB" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: validate --help states no plan caps"; }
  "$bin" pack --help | grep -q "CSV 128 MiB" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: pack --help states no CSV cap"; }
  # Memory bounded by the input on the readers that sniff a format: 24 M values
  # in 48 MB, under every cap but over the JSON readers' 16 M values. The
  # format sniffers parsed them with cJSON's own parser first (64 bytes a value:
  # 1.5 GB), then the loader refused them.
  { printf '{"tensors": ['; yes 1 | head -n 24000000 | tr '\n' ','; printf '1]}'; } >values.json
  fails 1 info "more than 16777216 values" "$bin" info values.json
  fails 1 validate "more than 16777216 values" "$bin" validate "$net" values.json
  if [ -x /usr/bin/time ]; then
    for args in "info values.json" "validate $net values.json"; do
      # shellcheck disable=SC2086
      kib=$(peak_kib "$bin" $args)
      if [ -n "$kib" ] && [ "$kib" -lt 400000 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $args: peak $kib KiB (a 48 MB file)"; fi
    done
  fi
  done_part
  ;;
outputs)
  cp "$net" net.json
  "$bin" solve net.json --budget M_R --out plan.json >/dev/null || { echo "setup: solve failed"; exit 1; }
  mkdir adir
  # every command that writes a file, and what it needs to get there
  while IFS='|' read -r cmd opt args; do
    for target in /dev/full "$tmp/adir" "$tmp/no/such/dir/f"; do
      # shellcheck disable=SC2086
      fails 1 "$cmd" "cannot write|is a directory|does not exist" "$bin" $cmd $args "$opt" "$target"
    done
  done <<EOF
solve|--out|net.json --budget M_R
pack|--out|$csv
pack|--out|net.json --budget M_P
offchip|--out|net.json --budget M_R
offchip|--tiled-net|net.json --budget M_R
import|--out|$dag
snapshot|--out|net.json
lesson|--out|schedule
bench cosma|--csv|--network chain --dir $data/networks --acts --time-limit 1
bench scale|--csv|--sizes 11
EOF
  # a folder option: /dev/full and a file are not folders, a path two folders deep cannot be made
  for target in /dev/full "$tmp/net.json" "$tmp/no/such/dir"; do
    fails 1 layer "not a directory|does not exist|cannot" "$bin" layer 3_14_16_16_1 --export-timeloop "$target"
  done
  # results on a full stdout are not a success
  fails_full 1 info "standard output: cannot write" "$bin" info net.json
  fails_full 1 solve "standard output: cannot write" "$bin" solve net.json --budget M_R
  fails_full 1 solve "standard output: cannot write" "$bin" solve net.json --budget M_R --out -
  fails_full 1 validate "standard output: cannot write" "$bin" validate net.json plan.json
  fails_full 1 offchip "standard output: cannot write" "$bin" offchip net.json --budget M_R --json
  fails_full 1 chunks "standard output: cannot write" "$bin" chunks --shape 4,4 --tile 2,2
  fails_full 1 import "cannot write to standard output" "$bin" import "$dag"
  # nothing left behind by the failed writes
  if [ -z "$(find "$tmp" -name '.spadmap-out-*')" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: temporaries left"; fi
  done_part
  ;;
unreadable)
  chmod 755 "$tmp"
  mkdir ro && chmod 755 ro # for nobody: a folder it cannot write in
  cp "$net" net.json
  "$bin" solve net.json --budget M_R --out plan.json >/dev/null || { echo "setup: solve failed"; exit 1; }
  for f in net.json plan.json; do cp "$f" "u_$f"; done
  cp "$data/arch/cosa_baseline.json" u_arch.json
  cp "$csv" u_in.csv
  chmod 644 net.json plan.json
  chmod 000 u_net.json u_plan.json u_arch.json u_in.csv
  run=""
  if [ "$(id -u)" -eq 0 ]; then
    # root reads and writes anything: run as nobody (uid and gid 65534, no groups)
    if command -v setpriv >/dev/null 2>&1; then run="setpriv --reuid=65534 --regid=65534 --clear-groups"
    elif command -v runuser >/dev/null 2>&1; then run="runuser -u nobody --"
    else echo "SKIP: running as root, and neither setpriv nor runuser is there to drop privileges"; exit 77; fi
    # the binary must be reachable by nobody: else a copy in the temporary folder
    if ! $run "$bin" --help >/dev/null 2>&1; then
      cp "$bin" ./spadmap && chmod 755 ./spadmap && bin=$tmp/spadmap
      if ! $run "$bin" --help >/dev/null 2>&1; then
        echo "SKIP: as nobody the binary does not run (its libraries or folders are not readable by nobody)"
        exit 77
      fi
    fi
    # the check itself: nobody cannot read what root made unreadable
    if $run cat u_net.json >/dev/null 2>&1; then echo "SKIP: as $run the mode 000 file is still readable"; exit 77; fi
  fi
  # shellcheck disable=SC2086
  fails 1 info "u_net\.json: cannot open: Permission denied" $run "$bin" info u_net.json
  # shellcheck disable=SC2086
  fails 1 solve "u_net\.json: cannot open: Permission denied" $run "$bin" solve u_net.json --budget M_R
  # shellcheck disable=SC2086
  fails 1 validate "u_plan\.json: cannot open: Permission denied" $run "$bin" validate net.json u_plan.json
  # shellcheck disable=SC2086
  fails 1 snapshot "u_plan\.json: cannot open: Permission denied" $run "$bin" snapshot net.json --plan u_plan.json
  # shellcheck disable=SC2086
  fails 1 layer "u_arch\.json: cannot open: Permission denied" $run "$bin" layer 3_14_16_16_1 --arch u_arch.json
  # shellcheck disable=SC2086
  fails 1 pack "u_in\.csv: cannot open: Permission denied" $run "$bin" pack u_in.csv
  # shellcheck disable=SC2086
  fails 1 pack "u_in\.csv: cannot open: Permission denied" $run "$bin" pack --check u_in.csv
  if [ -n "$run" ]; then
    # shellcheck disable=SC2086
    fails 1 solve "ro/p\.json: cannot write: Permission denied" $run "$bin" solve net.json --budget M_R --out ro/p.json
    # shellcheck disable=SC2086
    fails 1 offchip "ro/p\.json: cannot write: Permission denied" $run "$bin" offchip net.json --budget M_R --out ro/p.json
  else
    chmod 555 ro
    fails 1 solve "ro/p\.json: cannot write: Permission denied" "$bin" solve net.json --budget M_R --out ro/p.json
    fails 1 offchip "ro/p\.json: cannot write: Permission denied" "$bin" offchip net.json --budget M_R --out ro/p.json
    chmod 755 ro
  fi
  done_part
  ;;
*) echo "usage: cli_files.sh SPADMAP DATA_DIR TEST_DIR caps|outputs|unreadable"; exit 2 ;;
esac
