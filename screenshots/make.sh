#!/bin/sh
# Regenerates screenshots/*.svg from real runs (the same grid the terminal shows,
# with its colors): the README's pictures all from lesson stages (`spadmap lesson
# NAME --stage K --out F.svg`), the guides' others from `spadmap snapshot` key
# scripts. PNGs too when rsvg-convert or a real ImageMagick is installed.
# usage: screenshots/make.sh [BUILD_DIR]   (default: build)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
bin=${1:-$root/build}/tui/spadmap
nets=$root/data/networks
[ -x "$bin" ] || { echo "make.sh: build spadmap first ($bin not found)" >&2; exit 1; }
shot() { # NAME NET SIZE KEYS [more snapshot options]
  name=$1; net=$2; size=$3; keys=$4; shift 4
  "$bin" snapshot "$nets/$net.json" --size "$size" --keys "$keys" --out "$here/$name.svg" "$@"
  echo "wrote screenshots/$name.svg"
}
shot nasnet_a_pinned_mpmf nasnet_a 120x40 "cs"
shot diamond_spill        diamond  120x40 "x<Tab>"
shot fig1_help            fig1     120x40 "?"
shot nasnet_a_mp_zoom     nasnet_a 120x40 "px>>>"
shot resnet50_cosma_vs_default resnet50 120x40 "whcm<Down><Down><Down><Enter>"
# an ONNX model exported by torch.onnx.export (data/gen/export_onnx.py), opened as it is
"$bin" snapshot "$root/data/onnx/resnet18.onnx" --size 120x40 --keys "x<Tab>" --out "$here/resnet18_onnx.svg"
echo "wrote screenshots/resnet18_onnx.svg"
# docs/explorer.md's walk-through: find a tensor, explain a spill, the sweep, a saved plan, the legend
shot walk_search          resnet50 140x42 "/layer3.2.conv2<Enter>"
shot walk_explain         nasnet_a 150x45 "xxzzzz"
shot walk_sweep           nasnet_a 140x42 "W<Right><Right><Right><Down><Down>"
tmp=$(mktemp -d)
"$bin" solve "$nets/diamond.json" --budget 11K --schedule mpmf --out "$tmp/diamond.plan.json" >/dev/null
shot walk_open_plan       diamond  120x36 "" --plan "$tmp/diamond.plan.json"
rm -rf "$tmp"
shot walk_legend          diamond  100x30 "l"
shot walk_mono            diamond  100x30 "x" --mono
shot taa_example_offchip  taa_example 120x40 "D<Right><Tab><Tab>"
# the layer view (I): CoSA's loop nest, SmartShuttle's scheme table, the steps map (ZigZag, step 4)
shot layer_cosa           resnet50 120x40 "<End><Left><Left><Left><Left>I"
shot layer_shuttle        alexnet  120x32 "<Right><Right><Right><Right><Right><Right>Immmm"
shot layer_steps          alexnet  120x40 "<Right><Right><Right><Right><Right><Right>I<Left><Left><Right><Right><Right>"
# the lessons (spadmap lesson NAME): a stage each, narrative pane included; every
# picture README.md shows is one of these
lesson() { # NAME LESSON STAGE
  "$bin" lesson "$2" --stage "$3" --size 140x45 --out "$here/$1.svg"
  echo "wrote screenshots/$1.svg"
}
# lesson tour: the README's six steps at 80x24, drawn at 140x45
lesson tour_search          tour          2
lesson tour_explain         tour          3
lesson tour_compare         tour          4
lesson tour_sweep           tour          5
lesson tour_onnx            tour          6
lesson lesson_replacement   replacement   3
lesson lesson_fragmentation fragmentation 1
lesson lesson_schedule      schedule      3
lesson lesson_ilp           ilp           2
lesson lesson_tiling        tiling        2
lesson lesson_loopnest      loopnest      1
lesson lesson_reuse         reuse         1
lesson lesson_offloading    offloading    2
# PNG: rsvg-convert, or ImageMagick's convert if it is the real one
if command -v rsvg-convert >/dev/null 2>&1; then
  for f in "$here"/*.svg; do rsvg-convert "$f" -o "${f%.svg}.png"; done; echo "wrote PNGs (rsvg-convert)"
elif convert -version 2>/dev/null | grep -q ImageMagick; then
  for f in "$here"/*.svg; do convert "$f" "${f%.svg}.png"; done; echo "wrote PNGs (ImageMagick)"
else
  echo "no rsvg-convert or ImageMagick: SVG only"
fi
