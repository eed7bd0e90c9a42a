#!/bin/sh
# Every option of every command and subcommand, with bad values: the error is
# one line on stderr ("spadmap CMD: ..."), stdout stays empty, the exit code is 2
# (usage) or 1 (a file that cannot be read or written). The commands and their
# options are read from the help texts, which the option tables (tui/cli/cli.h:
# CliCommand, CliOption) print, so a new option is walked without a change here.
# usage: cli_options.sh SPADMAP DATA_DIR TEST_DIR
bin=$1; data=$2; tests=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
net=$data/networks/chain.json
conv=$data/networks/fsrcnn.json
csv=$tests/fuzz/seeds/csv/small.csv
pass=0; fail=0; cases=0

# The arguments a command runs with before the bad option is added: a quick,
# valid invocation (a command not listed gets NET).
base() {
  case "$1" in
  "solve" | "offchip" | "cost") echo "$net --budget M_R" ;;
  "validate") echo "$net $net" ;;
  "bench") echo "--network chain --repeat 1" ;;
  "bench "*) echo "" ;;
  "bench-render") echo "$net --repeat 1" ;;
  "import") echo "$tests/data/dag/diamond_dag.json" ;;
  "layers") echo "$conv" ;;
  "layer") echo "3_14_16_16_1" ;;
  "chunks") echo "--shape 4,4 --tile 2,2" ;;
  "pack") echo "$csv" ;;
  *) echo "$net" ;;
  esac
}

# Bad values for an option's argument, by its placeholder: files get paths that
# cannot be read or written, everything else junk, signs, overflow, NaN, empty.
bad_values() {
  case "$1" in
  *FILE* | *F.json* | *F.txt* | *.csv* | *.json* | *.svg*) printf '%s\n' "" "/" "$tmp/no/such/dir/f" ;;
  DIR) printf '%s\n' "" "$net" "$tmp/no/such/dir" ;;
  KEYS) printf "%s\n" "<Nope>" "<Click:x>" ;; # any text is a key sequence, but not an unknown key name
  *) printf "%s\n" "zzz" "-1" "99999999999999999999" "nan" "" "1e999" ;;
  esac
}

check() { # check CMD OPTION VALUE ARGS...
  cmd=$1; opt=$2; val=$3; shift 3
  cases=$((cases + 1))
  timeout 60 "$@" "$opt" "$val" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  lines=$(wc -l <"$tmp/err")
  why=""
  if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then why="exit $rc, wanted 2 (or 1 for a file)"
  elif [ -s "$tmp/out" ]; then why="stdout is not empty"
  elif [ "$lines" -ne 1 ]; then why="$lines lines on stderr, wanted one"
  elif ! head -1 "$tmp/err" | grep -q "^spadmap $cmd: "; then why="stderr does not begin \"spadmap $cmd: \""
  fi
  if [ -n "$why" ]; then
    echo "FAIL ($why): spadmap $cmd ... $opt '$val'"
    sed 's/^/  err| /' "$tmp/err" | head -3
    sed 's/^/  out| /' "$tmp/out" | head -3
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}

# The commands (spadmap --help), then each one's subcommands (its --help).
cmds=$("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
all=""
for c in $cmds; do
  all="$all $c"
  for s in $("$bin" "$c" --help | sed -n '/^subcommands/,/^$/p' | awk -v c="$c" 'NR > 1 && $1 == c { print $2 }'); do
    all="$all $c:$s"
  done
done
[ -n "$cmds" ] || { echo "FAIL: no commands in spadmap --help"; exit 1; }

for entry in $all; do
  cmd=$(echo "$entry" | tr ':' ' ')
  # "  --name ARG   help" (Cli_help: one space between the name and its
  # argument, two or more before the help of a flag): the options with an argument
  "$bin" $cmd --help | sed -n '/^options:/,/^$/p' | sed -n 's/^  \(--[a-z0-9-]*\) \([^ ][^ ]*\).*/\1 \2/p' >"$tmp/opts"
  while read -r opt arg; do
    bad_values "$arg" >"$tmp/vals"
    while IFS= read -r val; do
      # shellcheck disable=SC2046
      check "$cmd" "$opt" "$val" "$bin" $cmd $(base "$cmd")
    done <"$tmp/vals"
  done <"$tmp/opts"
done

# The defects found by hand (issue 28), each as it was reported: the error on
# stderr, one line, stdout empty, the exit code, and what the line says.
regress() { # regress CODE PATTERN CMD...
  code=$1; pattern=$2; shift 2
  cases=$((cases + 1))
  timeout 60 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne "$code" ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -- "$pattern" "$tmp/err"; then
    echo "FAIL (exit $rc, wanted $code and \"$pattern\" alone on stderr): $*"
    sed 's/^/  err| /' "$tmp/err" | head -3; sed 's/^/  out| /' "$tmp/out" | head -3
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
regress 2 "is below one byte" "$bin" offchip "$net" --budget M_R/99999999999999999999 # was 1 byte
regress 2 "--order applies to --method taa only" "$bin" offchip "$net" --budget M_R --method so-size --order lifetime
regress 2 "--no-fallback applies to --method taa only" "$bin" offchip "$net" --budget M_R --method so-size --no-fallback
regress 2 "^spadmap solve: --dtype applies to ONNX models" "$bin" solve "$net" --budget M_R --dtype int8 # was ignored
regress 2 "^spadmap info: --fold applies to ONNX models" "$bin" info "$net" --fold
regress 2 "^spadmap import: --dim applies to ONNX models" "$bin" import "$tests/data/dag/diamond_dag.json" --dim n=1
regress 1 '^spadmap bench taa: --dir "/nonexistent-h28": no such directory' "$bin" bench taa --dir /nonexistent-h28
regress 2 "origin 9223372036854775807 + tile 1 exceeds" "$bin" chunks --shape 9223372036854775807 --tile 1 \
  --origin 9223372036854775807 # UBSan: the sum wrapped
regress 2 "expected 1 to 8 positive integers" "$bin" chunks --shape 99999999999999999999 --tile 1 # was 2^63 - 1
regress 1 '^spadmap solve: --out "/" is a directory' "$bin" solve "$net" --budget M_R --out / # the plan was printed first
regress 2 '^spadmap pack: --out "" is empty' "$bin" pack "$csv" --out ""
regress 2 "^spadmap pack: --method does not apply to --check" "$bin" pack --check "$csv" --method so-size # was ignored
regress 2 "^spadmap pack: --capacity and --budget both set the capacity" "$bin" pack "$net" --capacity 100 --budget M_R
printf 'id,lower,upper,size\na,0,2,4\nb,1,3,8\na,0,2,4\n' >"$tmp/dup.csv" # rows that cannot be told apart
regress 1 'dup.csv:4:1: id "a" appears twice (buffers 1 and 3)' "$bin" pack "$tmp/dup.csv"
printf 'id,lower\n' >"$tmp/bad.csv"
regress 1 "^spadmap pack: .*bad.csv:1:1: the header has no 'upper' column" "$bin" pack "$tmp/bad.csv" # was on stdout
regress 1 "^spadmap pack: .*bad.csv:1:1: the header has no 'upper' column" "$bin" pack --check "$tmp/bad.csv"
regress 1 "^spadmap validate: .*bad.csv:1:1: malformed JSON" "$bin" validate "$net" "$tmp/bad.csv" # was on stdout
printf '{"format": "spadmap-network",\n "version": 1,' >"$tmp/cut.json"
regress 1 "^spadmap solve: .*cut.json:2:15: malformed JSON" "$bin" solve "$tmp/cut.json" --budget 1K # was "spadmap:"
regress 2 "^spadmap snapshot: --time-limit wants seconds from 0 to 1e7" "$bin" snapshot "$net" --time-limit 1e999
regress 1 "^spadmap tui: the explorer needs a terminal" "$bin" tui "$net" # was two lines, "spadmap:"
regress 1 "^spadmap layers: " "$bin" layers "$tmp/bad.csv"

echo "cli_options: $cases cases over $(echo $all | wc -w) commands, $pass passed, $fail failed"
[ "$fail" -eq 0 ]
