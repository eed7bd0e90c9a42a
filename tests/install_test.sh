#!/bin/sh
# `cmake --install` gives a spadmap that runs from any folder: it finds its data
# in PREFIX/share/spadmap (or $SPADMAP_DATA), keeps working when the whole prefix
# moves, and has no path of the build machine compiled in.
# usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR
cmake=$1; build=$2; src=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$cmake" --install "$build" --prefix "$tmp/p" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "cmake --install"; }
bin=$tmp/p/bin/spadmap
[ -x "$bin" ] || fail "no $bin"
for f in networks/resnet50.json networks/diamond.json arch/cosa_baseline.json arch/smartshuttle.json onnx/resnet18.onnx; do
  [ -f "$tmp/p/share/spadmap/$f" ] || fail "not installed: share/spadmap/$f"
done
[ -e "$tmp/p/share/spadmap/gen" ] && fail "the Python generators were installed"
[ -f "$tmp/p/share/man/man1/spadmap.1.gz" ] || fail "no man page share/man/man1/spadmap.1.gz"
[ -f "$tmp/p/share/bash-completion/completions/spadmap" ] || fail "no bash completion share/bash-completion/completions/spadmap"
[ -f "$tmp/p/share/doc/spadmap/README.md" ] && [ -f "$tmp/p/share/doc/spadmap/docs/explorer.md" ] || fail "docs not installed"

# from another folder, with no help from the environment
mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere" || exit 1
out=$(env -u SPADMAP_DATA "$bin" info resnet50) || fail "info resnet50 from another folder"
echo "$out" | grep -q "^ops 72, tensors 181" || fail "info resnet50 printed: $out"
env -u SPADMAP_DATA "$bin" layer 3_7_512_512_1 --arch cosa_sram --method random --samples 5 >/dev/null ||
  fail "layer with a bundled arch name"
env -u SPADMAP_DATA "$bin" solve diamond --budget M_R --out plan.json >/dev/null || fail "solve diamond"
env -u SPADMAP_DATA "$bin" validate diamond plan.json >/dev/null || fail "validate diamond"

# the prefix moved as a whole: still found (resolved from the executable, not compiled in)
mv "$tmp/p" "$tmp/moved"
env -u SPADMAP_DATA "$tmp/moved/bin/spadmap" info diamond >/dev/null || fail "info after moving the prefix"

# SPADMAP_DATA overrides; a wrong one says what it could not open
SPADMAP_DATA="$tmp/nothing" "$tmp/moved/bin/spadmap" info resnet50 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "SPADMAP_DATA=nothing: exit $rc, expected 1"
grep -q "resnet50" "$tmp/err" || fail "SPADMAP_DATA=nothing: $(cat "$tmp/err")"
mkdir -p "$tmp/mydata/networks" && cp "$src/data/networks/diamond.json" "$tmp/mydata/networks/mine.json"
SPADMAP_DATA="$tmp/mydata" "$tmp/moved/bin/spadmap" info mine >/dev/null || fail "SPADMAP_DATA=mydata: info mine"

# no path of the build machine in the installed binary (data folder, __FILE__, debug info);
# not checked in a sanitizer build (never installed: GCC 12 writes UBSan's source
# locations with the full path whatever -ffile-prefix-map says)
if grep -a -q __asan_init "$tmp/moved/bin/spadmap"; then
  echo "install: ok (a sanitizer build: the check for build paths in the binary was skipped)"
  exit 0
fi
for p in "$src" "$build"; do
  if grep -a -q -F "$p" "$tmp/moved/bin/spadmap"; then fail "the installed binary contains $p"; fi
done
echo "install: ok"
