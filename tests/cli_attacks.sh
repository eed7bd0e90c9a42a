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

# ---- a write interrupted by a signal leaves no temporary ----
# leftovers DIR: the temporaries (.spadmap-out-*) under DIR, one a line
leftovers() { find "$1" -name '.spadmap-out-*'; }

# The FIFO is held open here for reading and writing (fd 3): a writer never
# waits for a reader, a read never sees an early end of file (re-opening it per
# line raced with the announcing writer's close), and the lines of the hook and
# of the "done" below arrive in order.
# interrupted SIG CODE AT ARGS...: runs ARGS with the write hook holding it at its
# AT-th temporary, sends SIG to the pid it announces, waits for the end: exit
# CODE, the announced temporary gone, no .spadmap-out-* left in the folder.
interrupted() {
  sig=$1; code=$2; at=$3; shift 3
  rm -f "$tmp/fifo" "$tmp/rc"
  mkfifo "$tmp/fifo" || { bad "mkfifo"; return; }
  exec 3<>"$tmp/fifo"
  { SPADMAP_TEST_PAUSE_WRITE="$tmp/fifo" SPADMAP_TEST_PAUSE_WRITE_AT=$at "$@" </dev/null >"$tmp/out" 2>"$tmp/err" 3>&-
    echo $? >"$tmp/rc"; echo done >&3; } &
  read -r pid made <&3
  why=""
  if [ "$pid" = done ]; then
    why="ran to the end (exit $(cat "$tmp/rc")) without pausing at temporary $at"
  else
    [ -f "$made" ] || why="the announced temporary $made is not there"
    kill -s "$sig" "$pid"
    read -r _ <&3 # "done": the run has ended
    rc=$(cat "$tmp/rc")
    [ "$rc" -eq "$code" ] || why="$why; exit $rc, expected $code"
    [ -e "$made" ] && why="$why; the temporary $made was left"
    left=$(leftovers "$(dirname "$made")")
    [ -n "$left" ] && why="$why; left: $left"
  fi
  wait
  exec 3<&-
  if [ -z "$why" ]; then ok; else bad "SIG$sig at temporary $at of $*: $why"; sed 's/^/    stderr: /' "$tmp/err" | head -3; fi
}

mkdir w && cd w || exit 1
# the explorer's save (S: NAME.plan.json in the working folder), through snapshot's key script
interrupted TERM 143 1 "$bin" snapshot "$net" --keys "S<Enter>"
[ -e chain.plan.json ] && bad "SIGTERM in the explorer's save left chain.plan.json" || ok
# below M_R the save writes the plan, then its tiled network (the second temporary)
interrupted HUP 129 2 "$bin" snapshot "$net" --keys "-S<Enter>"
[ -e chain.tiled.net.json ] && bad "SIGHUP in the tiled network's save left chain.tiled.net.json" || ok
rm -f ./*.json
interrupted INT 130 1 "$bin" snapshot "$net" --out screen.txt
interrupted TERM 143 1 "$bin" import "$dag" --out dag.json
interrupted HUP 129 1 "$bin" lesson schedule --out lesson.txt
interrupted TERM 143 1 "$bin" solve "$net" --budget M_R --out plan.json
[ -e dag.json ] || [ -e lesson.txt ] || [ -e plan.json ] || [ -e screen.txt ] && bad "an interrupted --out left its file" || ok
cd "$tmp" || exit 1

# the real explorer in a terminal (tmux): S, Enter, then SIGTERM while the plan is written
if command -v tmux >/dev/null 2>&1; then
  TMUX_TMPDIR=$(mktemp -d) || exit 1
  export TMUX_TMPDIR
  sock="spadmap-attacks-$$"
  trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp" "$TMUX_TMPDIR"' EXIT
  mkdir tw && rm -f "$tmp/fifo" && mkfifo "$tmp/fifo" && exec 3<>"$tmp/fifo"
  if tmux -L "$sock" -f /dev/null new-session -d -s a -x 120 -y 40 -c "$tmp/tw" \
    "env LANG=C.UTF-8 TERM=xterm-256color SPADMAP_TEST_PAUSE_WRITE='$tmp/fifo' '$bin' '$net'; echo EXITED=\$? >'$tmp/tw.rc'; echo done >'$tmp/fifo'"; then
    # S saves once a plan is there (else "no plan to save yet"): wait for "solved" on the status line
    i=0
    until tmux -L "$sock" capture-pane -p -t a 2>/dev/null | grep -q "chain (5 ops).*solved" || [ $i -ge 600 ]; do
      sleep 0.1; i=$((i + 1))
    done
    tmux -L "$sock" send-keys -t a S Enter
    # bounded: an explorer that saves without pausing stays open and never writes the FIFO
    line=$(timeout 120 sh -c 'read -r l && echo "$l"' <&3)
    pid=${line%% *}; made=${line#* }
    if [ -z "$line" ]; then
      bad "the explorer's save never paused at its temporary"
    elif [ "$pid" = done ]; then
      bad "the explorer's save never paused ($(cat "$tmp/tw.rc"))"
    else
      kill -s TERM "$pid"
      read -r _ <&3
      grep -q "EXITED=143" "$tmp/tw.rc" && ok || bad "the explorer on SIGTERM: $(cat "$tmp/tw.rc"), expected 143"
      [ -z "$(leftovers "$tmp/tw")" ] && [ ! -e "$made" ] && ok || bad "SIGTERM in the explorer's save left $(leftovers "$tmp/tw")"
    fi
    tmux -L "$sock" kill-server 2>/dev/null
    exec 3<&-
  else
    echo "note: tmux could not start a server; the terminal case was not run"
  fi
else
  echo "note: no tmux; the explorer-in-a-terminal case was not run"
fi

# ---- --export-timeloop: all three files or none ----
mkdir tl && for f in arch prob; do echo "old $f" >"tl/$f.yaml"; done
mkdir tl/map.yaml # map.yaml cannot be written: arch.yaml and prob.yaml were replaced before it failed
fails 1 layer 'tl/map\.yaml: cannot write' "$bin" layer 3_14_16_16_1 --method random --export-timeloop tl
for f in arch prob; do
  [ "$(cat "tl/$f.yaml")" = "old $f" ] && ok || bad "a failed --export-timeloop replaced tl/$f.yaml"
done
[ -z "$(leftovers tl)" ] && ok || bad "a failed --export-timeloop left $(leftovers tl)"
rmdir tl/map.yaml
"$bin" layer 3_14_16_16_1 --method random --export-timeloop tl >/dev/null 2>&1 && grep -q "architecture" tl/arch.yaml &&
  grep -q "problem" tl/prob.yaml && grep -q "mapping" tl/map.yaml && ok || bad "--export-timeloop did not write its three files"

# a signal at its third temporary: all three temporaries go, the old set stays
mkdir tl2 && for f in arch prob map; do echo "old $f" >"tl2/$f.yaml"; done
interrupted TERM 143 3 "$bin" layer 3_14_16_16_1 --method random --export-timeloop tl2
for f in arch prob map; do
  [ "$(cat "tl2/$f.yaml")" = "old $f" ] && ok || bad "SIGTERM in --export-timeloop replaced tl2/$f.yaml"
done

echo "cli_attacks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
