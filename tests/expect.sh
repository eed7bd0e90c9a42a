# Sourced by the CLI test scripts (. "$(dirname "$0")/expect.sh"): a temporary folder
# removed on exit, pass/fail counters, and expect CODE PATTERN CMD... (the exit code and a
# line of the output matching PATTERN).
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
expect() { # expect CODE PATTERN CMD...
  code=$1; pattern=$2; shift 2
  "$@" >"$tmp/out" 2>&1
  rc=$?
  if [ "$rc" -ne "$code" ]; then bad "exit $rc, wanted $code: $*"; sed 's/^/  | /' "$tmp/out" | head -5
  elif ! grep -q -- "$pattern" "$tmp/out"; then bad "no \"$pattern\": $*"; sed 's/^/  | /' "$tmp/out" | head -5
  else ok; fi
}
