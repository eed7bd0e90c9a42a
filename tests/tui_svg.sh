#!/bin/sh
# P writes the screen in every view as NAME.screen.svg (colours as shown) and
# NAME.screen.txt, and says where: the map, the off-chip map, the layer view
# (CoSA bars, SmartShuttle, the steps map), the sweep (issue 26, point 2). The
# SVG must parse as XML and hold, row by row, every word of the text dump.
# usage: tui_svg.sh SPADMAP DATA_DIR; exits 77 (skip) without python3 or xmllint.
bin=$1; data=$2
if command -v python3 >/dev/null 2>&1; then check=python3
elif command -v xmllint >/dev/null 2>&1; then check=xmllint
else echo "SKIP: neither python3 nor xmllint to parse the SVG"; exit 77; fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0; fail=0
# case NAME NET SIZE KEYS: KEYS end in P; the screen drawn after shows the message
case_() {
  name=$1; net=$2; size=$3; keys=$4
  rm -f "$net.screen.svg" "$net.screen.txt"
  if ! "$bin" snapshot "$data/networks/$net.json" --size "$size" --keys "$keys" --out "$name.after.txt" 2>err; then
    echo "FAIL $name: snapshot failed"; sed 's/^/  | /' err; fail=$((fail + 1)); return
  fi
  if [ ! -s "$net.screen.svg" ] || [ ! -s "$net.screen.txt" ]; then
    echo "FAIL $name: P wrote no $net.screen.svg / .txt"; fail=$((fail + 1)); return
  fi
  if ! grep -q "wrote the screen to $net.screen.svg" "$name.after.txt"; then
    echo "FAIL $name: the screen does not say where P wrote"; tail -2 "$name.after.txt" | sed 's/^/  | /'
    fail=$((fail + 1)); return
  fi
  if [ "$check" = xmllint ]; then
    if xmllint --noout "$net.screen.svg"; then pass=$((pass + 1)); else echo "FAIL $name: SVG is not well-formed"; fail=$((fail + 1)); fi
    return
  fi
  if python3 - "$net.screen.svg" "$net.screen.txt" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()            # raises on malformed XML
ns = '{http://www.w3.org/2000/svg}'
rows = {}
for t in root.iter(ns + 'text'):
    y = int(float(t.get('y')))
    rows.setdefault(y // 17, []).append((float(t.get('x')), t.text or ''))
lines = open(sys.argv[2], encoding='utf-8').read().split('\n')
blocks = set('\u2588\u2580\u2584')
bad = 0
for i, line in enumerate(lines):  # the row's characters, blanks and blocks (drawn as rects) aside
    svg = ''.join(t for _, t in sorted(rows.get(i, []))).replace(' ', '')
    txt = ''.join(c for c in line if c != ' ' and c not in blocks)
    if svg != txt:
        print('  row %d: the SVG has "%s", the screen "%s"' % (i, svg[:100], txt[:100])); bad += 1
# the last column's glyph is drawn whole: the canvas leaves room past the text's end
# (text reaching the edge lost the right of its last glyph when rasterised: "dif", "K")
ends = [float(t.get('x')) + float(t.get('textLength', '0')) for t in root.iter(ns + 'text')]
if ends and float(root.get('width')) < max(ends) + 4:
    print('  the canvas (%s px) ends at the text (%.1f px): the last glyph is cut' % (root.get('width'), max(ends))); bad += 1
sys.exit(1 if bad else 0)
PY
  then pass=$((pass + 1)); else echo "FAIL $name: the SVG does not hold the screen's text"; fail=$((fail + 1)); fi
}
case_ map        nasnet_a      120x40 "P"
case_ map80      nasnet_a      80x24  "xxP"
case_ offchip    taa_example   100x30 "DP"
case_ layer      resnet50      120x40 "<End><Left><Left><Left><Left>IP"
case_ shuttle    alexnet       120x40 "<Right><Right><Right><Right><Right><Right>ImmmmP"
case_ steps      alexnet       120x40 "<Right><Right><Right><Right><Right><Right>I<Left>M<Right>P"
case_ sweep      diamond       100x30 "WP"
case_ help       diamond       80x24  "?P"
# the title bar's underscores are text in the SVG, and drawn after every background
if grep -q '>.*nasnet_a' nasnet_a.screen.svg 2>/dev/null || "$bin" snapshot "$data/networks/nasnet_a.json" --keys P >/dev/null && grep -q 'nasnet_a' nasnet_a.screen.svg; then
  last_rect=$(grep -n '<rect' nasnet_a.screen.svg | tail -1 | cut -d: -f1)
  first_text=$(grep -n '<text' nasnet_a.screen.svg | head -1 | cut -d: -f1)
  if [ "$last_rect" -lt "$first_text" ]; then pass=$((pass + 1)); else echo "FAIL svg: a rect is drawn over text (underscores vanish)"; fail=$((fail + 1)); fi
else
  echo "FAIL svg: nasnet_a not in the SVG's text"; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
