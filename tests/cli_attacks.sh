#!/bin/sh
# Issue 32's "found attacking it": one block per defect below, each failing on
# the code before its fix. Failing cases: the documented exit code, nothing on
# stdout, one line on stderr, nothing left behind.
# usage: cli_attacks.sh SPADMAP DATA_DIR TEST_DIR
bin=$1; data=$2; tests=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
net=$data/networks/chain.json
dag=$tests/data/dag/diamond_dag.json
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# fails CODE CMD PATTERN ARGS...: ARGS exits CODE, prints nothing on stdout and one
# line on stderr, "spadmap CMD: ..." matching PATTERN (grep -E)
fails() {
  code=$1; cmd=$2; pattern=$3; shift 3
  timeout 300 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  why=""
  [ "$rc" -eq "$code" ] || why="exit $rc, expected $code"
  [ -s "$tmp/out" ] && why="$why; stdout not empty: $(head -c 200 "$tmp/out")"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || why="$why; $(wc -l <"$tmp/err") lines on stderr"
  grep -Eq -- "^spadmap $cmd: $pattern" "$tmp/err" || why="$why; stderr does not match 'spadmap $cmd: $pattern'"
  if [ -z "$why" ]; then ok; else bad "$*: $why"; sed 's/^/    stderr: /' "$tmp/err" | head -3; fi
}

# ---- offchip --budget 0: refused as a usage error (it tiled nothing, exit 0) ----
fails 2 offchip '--budget "0": expected at least 1 byte on chip' "$bin" offchip "$net" --budget 0
fails 2 offchip '--budget "0K": expected at least 1 byte on chip' "$bin" offchip "$net" --budget 0K
"$bin" offchip "$net" --budget 1 >out.txt 2>&1 && grep -q "on-chip        1 bytes: 5 ops tiled" out.txt && ok ||
  bad "offchip --budget 1 does not tile every op: $(head -3 out.txt)"

# ---- help CMD [SUB] on a full or closed stdout: 1, as help and CMD --help ----
for args in "help solve" "help bench pack" "help" "solve --help"; do
  # shellcheck disable=SC2086
  timeout 60 "$bin" $args >/dev/full 2>err.txt
  rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -Eq "^spadmap (help|solve): standard output: cannot write" err.txt && ok ||
    bad "spadmap $args >/dev/full: exit $rc; $(cat err.txt)"
done
timeout 60 "$bin" help layer >&- 2>err.txt
rc=$?
[ $rc -eq 1 ] && grep -q "^spadmap help: standard output: cannot write" err.txt && ok || bad "spadmap help layer >&-: exit $rc; $(cat err.txt)"

# ---- an empty positional argument: 2, as an empty option value ----
fails 2 info 'an argument is empty \(""\) \(usage: spadmap info NET' "$bin" info ""
fails 2 validate 'an argument is empty' "$bin" validate "$net" ""
fails 2 solve 'an argument is empty' "$bin" solve "" --budget M_R
fails 2 pack 'an argument is empty' "$bin" pack ""
fails 2 lesson 'an argument is empty' "$bin" lesson ""

# ---- a bad SPADMAP_DATA is named ----
mkdir nodata
fails 1 info 'resnet50: no such file, and the data folder .*/nodata \(set by SPADMAP_DATA\) has no networks/resnet50\.json$' \
  env SPADMAP_DATA="$tmp/nodata" "$bin" info resnet50
fails 1 solve 'resnet50: no such file, and the data folder .*/nodata \(set by SPADMAP_DATA\) has no networks/resnet50\.json$' \
  env SPADMAP_DATA="$tmp/nodata" "$bin" solve resnet50 --budget M_R
fails 1 info 'no_such_net: no such file, and the data folder .* has no networks/no_such_net\.json$' "$bin" info no_such_net
# ---- lesson with no lessons: nothing on stdout (it printed the list's header), the folder named ----
mkdir -p nodata
fails 1 lesson 'no lessons in .*/nodata/lessons \(the data folder, set by SPADMAP_DATA\)$' \
  env SPADMAP_DATA="$tmp/nodata" "$bin" lesson

# ---- bench pack --dir: every file, in name order; a FIFO is skipped ----
mkdir csvs
i=0
while [ $i -lt 5000 ]; do
  printf 'id,lower,upper,size\n0,0,2,4\n1,1,3,4\n' >"csvs/i$i.8.csv"
  i=$((i + 1))
done
mkfifo csvs/zz.8.csv
timeout 120 "$bin" bench pack --dir csvs --time-limit 1 >out.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] && ok || bad "bench pack --dir of 5,000 CSVs and a FIFO: exit $rc"
grep -q "^spadmap: 5000 of 5000 solved" out.txt && ok || bad "bench pack --dir: $(grep solved out.txt) (5,000 files)"
grep -q "csvs/zz.8.csv: skipped: not a regular file" err.txt && ok || bad "bench pack --dir: no note for the FIFO: $(head -2 err.txt)"
# name order: i0, i1, i10, i100, ...
[ "$(grep -o '| i[0-9]*\.8\.csv' out.txt | head -4 | tr -d '| ' | tr '\n' ' ')" = "i0.8.csv i1.8.csv i10.8.csv i100.8.csv " ] && ok ||
  bad "bench pack --dir: rows not in name order: $(grep -o '| i[0-9]*\.8\.csv' out.txt | head -4 | tr '\n' ' ')"
# a FIFO among networks is skipped too
mkdir nets && cp "$net" nets/chain.json && mkfifo nets/zz.json
timeout 120 "$bin" bench pack --dir nets --nets-only --time-limit 1 >out.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] && grep -q "| chain | " out.txt && grep -q "nets/zz.json: skipped: not a regular file" err.txt && ok ||
  bad "bench pack --dir with a FIFO among networks: exit $rc; $(head -2 err.txt)"

# ---- a capacity of 2^50 and more in the file name ----
mkdir big
printf 'id,lower,upper,size\n0,0,2,4\n1,1,3,4\n' >big/two.1125899906842624.csv      # 2^50
printf 'id,lower,upper,size\n0,0,2,4\n1,1,3,4\n' >big/top.4611686018427387904.csv   # 2^62
timeout 300 "$bin" bench pack --dir big --time-limit 1 >out.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] && grep -q "| two.1125899906842624.csv | 2 | 1,125,899,906,842,624 | found" out.txt &&
  grep -q "| top.4611686018427387904.csv | 2 | 4,611,686,018,427,387,904 | found" out.txt && ok ||
  bad "bench pack: capacities 2^50 and 2^62 in the name: exit $rc; $(grep csv out.txt; head -2 err.txt)"
printf 'id,lower,upper,size\n0,0,2,4\n' >big/over.4611686018427387905.csv            # 2^62 + 1
printf 'id,lower,upper,size\n0,0,2,4\n' >big/huge.99999999999999999999999.csv
timeout 300 "$bin" bench pack --dir big --time-limit 1 >out.txt 2>err.txt
rc=$?
[ $rc -eq 1 ] && grep -q "over.4611686018427387905.csv: the capacity in the name (NAME.CAPACITY.csv) is over 2^62 bytes" err.txt &&
  grep -q "huge.99999999999999999999999.csv: the capacity in the name (NAME.CAPACITY.csv) is over 2^62 bytes" err.txt && ok ||
  bad "bench pack: a capacity over 2^62 in the name: exit $rc; $(cat err.txt)"

echo "cli_attacks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
