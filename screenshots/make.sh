#!/bin/sh
# Regenerates screenshots/*.svg from real runs of `spadmap snapshot` (the same
# grid the terminal shows, with its colors). PNGs too when rsvg-convert or a
# real ImageMagick is installed.
# usage: screenshots/make.sh [BUILD_DIR]   (default: build)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
bin=${1:-$root/build}/tui/spadmap
nets=$root/data/networks
[ -x "$bin" ] || { echo "make.sh: build spadmap first ($bin not found)" >&2; exit 1; }
shot() { # NAME NET SIZE KEYS
  "$bin" snapshot "$nets/$2.json" --size "$3" --keys "$4" --out "$here/$1.svg"
  echo "wrote screenshots/$1.svg"
}
shot resnet50_mr          resnet50 120x40 "x<Tab>"
shot nasnet_a_pinned_mpmf nasnet_a 120x40 "cs"
shot diamond_spill        diamond  120x40 "x<Tab>"
shot fig1_help            fig1     120x40 "?"
shot nasnet_a_mp_zoom     nasnet_a 120x40 "px>>>"
shot resnet50_cosma_vs_default resnet50 120x40 "whcm<Down><Down><Down><Enter>"
shot taa_example_offchip  taa_example 120x40 "D<Right><Tab><Tab>"
# PNG: rsvg-convert, or ImageMagick's convert if it is the real one
if command -v rsvg-convert >/dev/null 2>&1; then
  for f in "$here"/*.svg; do rsvg-convert "$f" -o "${f%.svg}.png"; done; echo "wrote PNGs (rsvg-convert)"
elif convert -version 2>/dev/null | grep -q ImageMagick; then
  for f in "$here"/*.svg; do convert "$f" "${f%.svg}.png"; done; echo "wrote PNGs (ImageMagick)"
else
  echo "no rsvg-convert or ImageMagick: SVG only"
fi
