#!/bin/sh
# spadmap lesson from the command line (tui/cli/cli_lesson.c): --check on every
# bundled lesson holds; a teacher's lesson with a false claim says which and
# exits 1; a lesson folder holding a FIFO lists at once; a path too long to keep
# is refused (it was cut to another file's name); a lesson that tries to write
# is refused before anything runs.
# usage: lesson_cli.sh SPADMAP DATA_DIR
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); data=$(cd "$2" && pwd)
. "$(dirname "$0")/expect.sh"
# every bundled lesson's claims hold
for f in "$data"/lessons/*.json; do
  expect 0 "claims\{0,1\}: all hold" "$bin" lesson "$f" --check
done
expect 0 "stage 2: claim 1 \"status optimal\": current.solver (optimal) == \"optimal\": holds" "$bin" lesson ilp --check
# a teacher's own lesson, beside its own network; one claim is false
cp "$data/networks/diamond.json" "$tmp/mine_net.json"
cat >"$tmp/mine.json" <<'JSON'
{
  "format": "spadmap-lesson",
  "title": "Mine",
  "summary": "a teacher's lesson",
  "network": "mine_net.json",
  "stages": [
    {"title": "Belady", "budget": "10.5K", "policies": {"replacement": "belady"},
     "text": ["{current.spills} spills, {current.traffic} moved"],
     "claims": [{"a": "current.spills", "op": ">", "b": 0}]},
    {"title": "LRU", "budget": "10.5K", "policies": {"replacement": "lru"},
     "pinned": {"policies": {"replacement": "belady"}},
     "text": ["LRU {current.spills}, Belady {pinned.spills}"],
     "claims": [{"a": "pinned.spills", "op": ">", "b": "current.spills", "says": "Belady makes more spills"}]}
  ]
}
JSON
expect 1 "stage 2: claim 1 \"Belady makes more spills\": pinned.spills (3) > current.spills (3): FALSE" \
  "$bin" lesson "$tmp/mine.json" --check
"$bin" lesson "$tmp/mine.json" --out "$tmp/mine.txt" || { echo "FAIL: lesson mine.json --out: exit $?"; fail=$((fail + 1)); }
if grep -q "3 spills, 36.0K moved" "$tmp/mine.txt"; then pass=$((pass + 1)); else
  echo "FAIL: mine.json's stage 1 does not read \"3 spills, 36.0K moved\""; sed 's/^/  | /' "$tmp/mine.txt" | tail -6; fail=$((fail + 1)); fi
# a stage that cannot be set up: --check names the file and the stage once (it said "stage 1:
# ./t.json: stage 1: cursor: ...")
sed 's/"policies": {"replacement": "belady"},$/"policies": {"replacement": "belady"}, "cursor": {"spill": 9},/' \
  "$tmp/mine.json" >"$tmp/cur.json"
expect 1 "^[^ ]*cur.json: stage 1: cursor: spill 9 of 3$" "$bin" lesson "$tmp/cur.json" --check
if grep -q "stage 1:.*stage 1:" "$tmp/out"; then bad "--check names the stage twice"; else ok; fi
expect 2 "no --out, no --stage" "$bin" lesson "$tmp/mine.json" --check --stage 2
# the old format's save_plan=PATH: refused before anything runs, nothing written
cat >"$tmp/evil.json" <<JSON
{"format": "spadmap-lesson", "title": "t", "summary": "s", "network": "diamond",
 "stages": [{"title": "a", "text": "x", "do": ["save_plan=$tmp/victim.json", "y"]}]}
JSON
expect 1 "evil.json: \$.stages\[0\].do: unknown key" "$bin" lesson "$tmp/evil.json" --out "$tmp/e.txt"
if [ -e "$tmp/victim.json" ]; then echo "FAIL: a lesson wrote $tmp/victim.json"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# a network in the working folder, not beside the lesson: not read
mkdir -p "$tmp/cwd" "$tmp/elsewhere"
cp "$data/networks/diamond.json" "$tmp/cwd/net.json"
sed 's/"mine_net.json"/"net.json"/' "$tmp/mine.json" >"$tmp/elsewhere/l.json"
expect 1 "l.json: \$.network: no network \"net.json\"" sh -c 'cd "$1" && "$2" lesson "$3" --check' sh "$tmp/cwd" "$bin" "$tmp/elsewhere/l.json"
# a path of 1,100 bytes: refused (it was cut at 1,023 and named another file)
long=$(printf "%01100d" 0 | tr 0 a)
expect 2 "a lesson name or path of 1102 bytes" "$bin" lesson "./$long"
# a FIFO in the lessons folder: the list does not wait for a writer, and naming it is refused
mkdir -p "$tmp/data/lessons"
ln -s "$data/networks" "$tmp/data/networks"
ln -s "$data/arch" "$tmp/data/arch"
cp "$data/lessons/ilp.json" "$tmp/data/lessons/"
if mkfifo "$tmp/data/lessons/hang.json" 2>/dev/null; then
  expect 0 "ilp .*2 stages" env SPADMAP_DATA="$tmp/data" "$bin" lesson
  expect 1 "hang.json: not a regular file" env SPADMAP_DATA="$tmp/data" "$bin" lesson hang --out "$tmp/h.txt"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
