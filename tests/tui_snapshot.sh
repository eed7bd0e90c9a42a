#!/bin/sh
# The explorer's screens, rendered headlessly by `spadmap snapshot` after a key
# script, compared with the dumps in tests/screens/ (checked by eye once).
# usage: tui_snapshot.sh SPADMAP DATA_DIR TEST_DIR
# UPDATE_SCREENS=1 rewrites the expected dumps instead (look at the diff after).
bin=$1; data=$2; dir=$3/screens
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
# compare NAME WHAT: the screen just written to $tmp/NAME.txt against the expected
# dump (or, with UPDATE_SCREENS, in its place); WHAT names the run in a failure
compare() {
  if [ -n "$UPDATE_SCREENS" ]; then
    cp "$tmp/$1.txt" "$dir/$1.txt"; echo "updated $dir/$1.txt"; pass=$((pass + 1)); return
  fi
  if ! cmp -s "$tmp/$1.txt" "$dir/$1.txt"; then
    echo "FAIL $1 ($2): screen differs from $dir/$1.txt"
    diff "$dir/$1.txt" "$tmp/$1.txt" | head -20 | sed 's/^/  | /'
    fail=$((fail + 1)); return
  fi
  pass=$((pass + 1))
}
# case NAME NET SIZE KEYS [more snapshot options]
case_() {
  name=$1; net=$2; size=$3; keys=$4; shift 4
  if ! "$bin" snapshot "$data/networks/$net.json" --size "$size" --keys "$keys" --out "$tmp/$name.txt" "$@" 2>"$tmp/err"; then
    echo "FAIL $name: spadmap snapshot failed"; sed 's/^/  | /' "$tmp/err"; fail=$((fail + 1)); return
  fi
  compare "$name" "keys \"$keys\", $size"
}
# shows NAME TEXT: the screen case_ NAME just drew contains TEXT. A dump
# regenerated with UPDATE_SCREENS can change what it shows (a method added before
# the one a key script reached); this catches that.
shows() {
  if ! grep -qF -- "$2" "$tmp/$1.txt" 2>/dev/null; then
    echo "FAIL $1: the screen does not show \"$2\""; fail=$((fail + 1)); return
  fi
  pass=$((pass + 1))
}
case_ fig1_start            fig1     80x24  ""
case_ fig1_mp_pinned        fig1     80x24  "c p<Right><Right>"
case_ diamond_mpmf_compare  diamond  120x40 "cs"
case_ diamond_spill_tensor  diamond  120x40 "x<Tab>"
case_ diamond_typed_budget  diamond  80x24  "b12K<Enter><End>"
case_ diamond_help          diamond  80x24  "?"
# F1 opens the help (each action's name beside its key), an unbound key says so (issue 26, point 10)
case_ diamond_help_f1       diamond  100x30 "<F1>"
shows diamond_help_f1       "budget_mr: budget = M_R"
case_ diamond_unknown_key   diamond  80x24  "j"
shows diamond_unknown_key   "no action on j (? for help)"
case_ resnet50_start        resnet50 120x40 ""
# the free bytes are the budget's, so the line says the budget, not the peak (issue 33)
shows resnet50_start        "resident 931.0K of the 2.30M budget, largest gap 1.39M of 1.39M free"
case_ resnet50_zoom         resnet50 120x40 "xzz<Tab>"
case_ resnet50_params_mh    resnet50 80x24  "wh"
case_ resnet50_budget_up    resnet50 80x24  "+++"
case_ nasnet_a_too_small    nasnet_a 79x23  ""
# narrower than the message: it wraps (at 20 columns it ended "terminal too small (")
case_ diamond_too_narrow    diamond  20x5   ""
shows diamond_too_narrow    "20x5)"
# the file picker (O): the listing, a filter, and opening another network
case_ diamond_picker        diamond  80x24  "O"
case_ diamond_picker_filter diamond  80x24  "Ore"
case_ fig1_open_diamond     fig1     80x24  "Odiam<Enter>"
# the layer view (I): the paper's CoSA on the op at the cursor (the paper's Fig. 8 layer
# 3_7_512_512_1), ours (cosa-plus, m), random on the 4x PE variant, an op that is no layer
case_ resnet50_layer_cosa   resnet50 120x40 "<End><Left><Left><Left><Left>I"
shows resnet50_layer_cosa   "MIP optimal, objective 6.068 (gap 0.0 %"
# the arch as the CLI names it (its "name" field), not its file's stem (issue 33: "cosa_baseline")
shows resnet50_layer_cosa   "arch cosa-baseline"
shows resnet50_layer_cosa   "latency 1,266,944 cycles"
shows resnet50_layer_cosa   "energy 584.1 µJ (5.05 pJ/MAC)"
case_ resnet50_layer_cosa_plus resnet50 120x40 "<End><Left><Left><Left><Left>Im"
shows resnet50_layer_cosa_plus "best of 3 weight vectors"
case_ resnet50_layer_random resnet50 120x40 "<Right><Right><Right>Imma"
shows resnet50_layer_random "best of 5 valid random mappings"
case_ resnet50_layer_pool   resnet50 80x24  "<Right>I"
# SmartShuttle's scheme table (the method after the five mappers) and the steps map
# (ZigZag, stepped to step 4) in the layer view
case_ alexnet_layer_shuttle alexnet  120x40 "<Right><Right><Right><Right><Right><Right>Immmmmm"
shows alexnet_layer_shuttle "method smartshuttle"
shows alexnet_layer_shuttle "MACs per DRAM access"
case_ alexnet_layer_steps   alexnet  120x40 "<Right><Right><Right><Right><Right><Right>I<Left>M<Right><Right><Right>"
shows alexnet_layer_steps   "Offloading steps (zigzag): G = 4"
# the same ZigZag with 3 patches per step (-), at step 2
case_ alexnet_layer_steps_g3 alexnet 120x40 "<Right><Right><Right><Right><Right><Right>I<Left>M-<Right>"
shows alexnet_layer_steps_g3 "Offloading steps (zigzag): G = 3"
# at the ends of the steps map the arrows stay on it (they switched the method and
# threw the plan away); a (architectures) is for the mappers only (it re-solved
# and put the cursor back to step 1)
case_ alexnet_layer_steps_ends alexnet 120x40 "<Right><Right><Right><Right><Right><Right>I<Left>M<Left><Left><PgUp><Home>"
shows alexnet_layer_steps_ends "method steps-zigzag"
shows alexnet_layer_steps_ends "step 1 of 43"
case_ alexnet_layer_steps_arch alexnet 120x40 "<Right><Right><Right><Right><Right><Right>I<Left>M<Right><Right><Right>a"
shows alexnet_layer_steps_arch "step 4 of 43"
# params on and a budget below M_R: one tiling, and the budget said to be out of
# reach (the tiled network's M_R with params stayed above it: re-tiling recursed
# until the stack overflowed, leaving the terminal raw)
case_ resnet50_params_below resnet50 80x24 "w-"
shows resnet50_params_below "weights are not tiled"
case_ fig1_picker_prefix     fig1     80x24  "Onasnet"
# mouse clicks: a block (its step and tensor), a schedule row, a zoomed and panned map
case_ diamond_click_block   diamond  120x40 "zz<Click:40,30>"
case_ diamond_click_sched   diamond  120x40 "<Click:100,14>"
case_ resnet50_zoom_click   resnet50 80x24  "zz]<Click:27,12>"
# the policy menu (m): browsing every kind (ILP policies included), and applying a choice
case_ diamond_menu          diamond  100x30 "m<Down><Right><Down><Down><Down><Down>"
case_ diamond_menu_apply    diamond  80x24  "m<Down><Enter>"
# the joint COSMA policy from the menu: it decides the order, the addresses and the evictions
case_ diamond_cosma         diamond  100x30 "m<Down><Down><Down><Enter>"
# finding: a search and its next match, a step number, the peak, spill events, a tensor's events
case_ resnet50_search        resnet50 120x40 "/layer2.0.conv<Enter>n"
case_ resnet50_goto_peak     resnet50 100x30 "g40<Enter>k"
case_ nasnet_a_spill_walk    nasnet_a 120x40 "xxxx"
case_ resnet50_tensor_events resnet50 120x40 "x<Home>tt"
# explaining a spill: the block that needed room, the largest gap, what the policy weighed
case_ diamond_explain        diamond  120x40 "x"
case_ nasnet_a_explain_greedy nasnet_a 150x45 "eeexx"
case_ nasnet_a_explain_belady nasnet_a 150x45 "xx"
# 80x24 stays usable for the main tasks: a spill explained (the cursor's op and "why it
# left" shown, the policy's next read whole), a search, a comparison (issue 26)
case_ nasnet_a_explain_80x24 nasnet_a 80x24  "xx"
shows nasnet_a_explain_80x24 "why it left after step 7:"
shows nasnet_a_explain_80x24 "next read at step 14"
shows nasnet_a_explain_80x24 "step 7/635"
case_ resnet50_search_80x24  resnet50 80x24  "/layer2.0.conv<Enter>"
shows resnet50_search_80x24  "layer2.0.conv1 (conv2d)"
case_ diamond_compare_80x24  diamond  80x24  "ceee"
shows diamond_compare_80x24  "pinned"
# long names keep their distinctive end; the panel widens with the terminal; a click on a stay
case_ densenet121_long_names densenet121 160x45 "xx"
case_ diamond_click_stay     diamond  120x40 "x<Click:90,34>"
# teaching: the legend, help pages at 80x24, monochrome fills
case_ diamond_legend         diamond  80x24  "l"
# the legend lists every mark and word the map uses (issue 33): half blocks, the cursor's and
# the peak's marks, and the words a stay starts and ends with (create/load/retrieve, free/spill/drop/store)
shows diamond_legend         "▀  and ▄: half blocks"
shows diamond_legend         "marks it too"
shows diamond_legend         "on the budget line"
shows diamond_legend         "(evicted; the host has a copy)"
shows diamond_legend         "store (an output"
shows diamond_legend         "sizes: B bytes"
case_ diamond_help_page2     diamond  80x24  "?<PgDn>"
case_ diamond_mono           diamond  100x30 "x" --mono
# what-if: flip to the pinned plan, typed budgets in printed forms, settings from the command line
case_ diamond_flip           diamond  120x40 "cpv"
case_ fig1_budget_factor     fig1     80x24  "bM_P*1.25<Enter>"
case_ diamond_cli_settings   diamond  100x30 "" --budget 11,264 --schedule mpmf --replacement lru
# the budget sweep: the chart, another metric, and Enter opening a point's plan
case_ nasnet_a_sweep         nasnet_a 120x40 "W<Right><Right><Right><Down><Down>"
case_ resnet50_sweep_spills  resnet50 100x30 "W<Tab>"
case_ diamond_sweep_enter    diamond  100x30 "W<End><Down><Down><Enter>"
# at 80x24 the list's names kept their first letters and lost the allocator, with no
# mark ("default/belady/li"): now the schedule shrinks to its initial for every row and
# what still does not fit ends in an ellipsis; the last budget label is not cut ("1.20")
case_ nasnet_a_sweep_80x24   nasnet_a 80x24  "W"
shows nasnet_a_sweep_80x24   "│d/belady/linear "
shows nasnet_a_sweep_80x24   "│d/size-aware/lin…"
shows nasnet_a_sweep_80x24   "│m/belady/linear "
# every view's legend on the legend key (issue 26, point 3): the sweep's (l did nothing
# there), the off-chip map's (it showed the on-chip one); the sweep proves the ILP points
# in a snapshot too (small networks), and says unknown keys
case_ diamond_sweep_legend   diamond  100x30 "Wl"
shows diamond_sweep_legend   "legend: the budget sweep"
shows diamond_sweep_legend   "the proven ILP optimum"
case_ diamond_sweep_ilp      diamond  100x30 "W"
shows diamond_sweep_ilp      "ILP optimum, default order, at this budget: 32.0K"
case_ diamond_sweep_unknown  diamond  100x30 "Wj"
shows diamond_sweep_unknown  "no action on j in the sweep (? for help)"
case_ taa_example_off_legend taa_example 100x30 "Dl"
shows taa_example_off_legend "legend: the off-chip map"
# the layer view's legends: the mappers' tile bars, the steps map with its patch grid
case_ resnet50_layer_legend  resnet50 120x40 "<End><Left><Left><Left><Left>Il"
shows resnet50_layer_legend  "legend: the layer's mapping"
shows resnet50_layer_legend  "W: the weights' (kernels') tile"
case_ alexnet_steps_legend   alexnet  120x40 "<Right><Right><Right><Right><Right><Right>I<Left>Ml"
shows alexnet_steps_legend   "legend: the steps map"
shows alexnet_steps_legend   "patch grid: a patch of the cursor's step"
# saving asks for a path (Esc leaves without writing)
case_ diamond_save_prompt    diamond  80x24  "S"
# a saved plan opened with --plan (written by solve first)
if "$bin" solve "$data/networks/diamond.json" --budget 12K --schedule mpmf --out "$tmp/d.plan.json" >/dev/null; then
  case_ diamond_open_plan    diamond  100x30 "" --plan "$tmp/d.plan.json"
else
  echo "FAIL diamond_open_plan: solve --out failed"; fail=$((fail + 1))
fi
# the off-chip map (D): tiles as stripes, a selected tensor's tiles listed, a click, a budget below M_R
case_ taa_example_offchip   taa_example 120x40 "D"
case_ taa_example_off_tab   taa_example 80x24  "D<Right><Tab><Tab>"
# the lifetimes are in ticks, defined where they are met (issue 33)
shows taa_example_off_tab   "ticks: sub-step u reads at 2u+1,"
case_ taa_example_off_click taa_example 100x30 "D<Click:30,10>"
case_ squeezenet_off_below  squeezenet1_0 100x30 "b300K<Enter>D<Right><Right>"
# below M_R the tiled network is staged on chip; at or above M_R the original returns
case_ squeezenet_staged     squeezenet1_0 120x40 "b300K<Enter><Right><Right><Tab>"
# the tiled network's name without its "@307200" (the budget beside it says it in K)
shows squeezenet_staged     " squeezenet1_0 (70 ops) │ budget 300.0K < M_R 1.42M, tiled"
case_ squeezenet_unstaged   squeezenet1_0 80x24  "b300K<Enter>b2M<Enter>"
case_ squeezenet_staged_off squeezenet1_0 100x30 "b300K<Enter>D<Right><Right><Tab>"
# `-` walks below M_R too: each press past the tiled network's own M_R tiles the original finer
case_ diamond_minus_below   diamond       120x40 "r----"
# a lesson at 80x24 (spadmap lesson NAME --keys): the pane shows five rows of the
# stage and says more is below; Space scrolls to the stage's last words (they were
# lost); f hides the text and the map takes the rows (issue 26)
lesson_() {
  name=$1; lesson=$2; size=$3; keys=$4
  if ! "$bin" lesson "$data/lessons/$lesson.json" --size "$size" --keys "$keys" --out "$tmp/$name.txt" 2>"$tmp/err"; then
    echo "FAIL $name: spadmap lesson failed"; sed 's/^/  | /' "$tmp/err"; fail=$((fail + 1)); return
  fi
  compare "$name" "lesson $lesson, keys \"$keys\", $size"
}
lesson_ lesson_fragmentation_80x24 fragmentation 80x24 ""
shows lesson_fragmentation_80x24 "more ↓ 3 lines (Space)"
lesson_ lesson_fragmentation_80x24_more fragmentation 80x24 " "
shows lesson_fragmentation_80x24_more "something is spilled instead. The shaded dots on the map are that free space"
shows lesson_fragmentation_80x24_more "more ↑ 3 ({)"
lesson_ lesson_fragmentation_80x24_hidden fragmentation 80x24 "f"
shows lesson_fragmentation_80x24_hidden "f: show the text"
# the map's legend over a lesson at 80x24 (16 rows above the pane): the rows that fit,
# and the bottom border says the rest is cut and how to see it (the last paragraph was
# drawn over the border and lost); with the pane folded, all of it
lesson_ lesson_tour_legend_80x24 tour 80x24 "l"
shows lesson_tour_legend_80x24 "more than fits: f folds the lesson's text"
lesson_ lesson_tour_legend_80x24_folded tour 80x24 "fl"
shows lesson_tour_legend_80x24_folded "store (an output, to DRAM)"
# over the layer view the pane names what q does there: it closes the view (the pane said
# "q: quit"); closed, q quits again
"$bin" lesson "$data/lessons/loopnest.json" --size 100x30 --out "$tmp/ln.txt" 2>"$tmp/err" || echo "lesson loopnest failed" >"$tmp/ln.txt"
shows ln "q: close the view"
"$bin" lesson "$data/lessons/loopnest.json" --size 100x30 --keys q --out "$tmp/ln_closed.txt" 2>"$tmp/err" || echo "failed" >"$tmp/ln_closed.txt"
shows ln_closed "q: quit"
# the ASCII fallback (non-UTF-8 locales)
if "$bin" snapshot "$data/networks/diamond.json" --size 80x24 --ascii --out "$tmp/ascii.txt" &&
   ! LC_ALL=C grep -q '[^ -~]' "$tmp/ascii.txt"; then
  pass=$((pass + 1))
else
  echo "FAIL --ascii: output is not pure ASCII"; fail=$((fail + 1))
fi
# an SVG is well-formed enough to open: one root, text runs, closed
if "$bin" snapshot "$data/networks/fig1.json" --size 80x24 --out "$tmp/s.svg" &&
   head -1 "$tmp/s.svg" | grep -q '^<svg ' && tail -1 "$tmp/s.svg" | grep -q '^</svg>' &&
   grep -q '<text ' "$tmp/s.svg"; then
  pass=$((pass + 1))
else
  echo "FAIL svg output"; fail=$((fail + 1))
fi
# names measured by display width (issue 33): CJK characters take two columns, combining marks
# none, so a long name is cut at its column budget and never spills into the next view or row
# (tests/data/wide_names.json: diamond with a CJK + combining-mark op/tensor and an emoji)
for keys in "" "<Right><Tab>"; do
  name=wide_names$( [ -n "$keys" ] && echo _selected )
  if "$bin" snapshot "$3/data/wide_names.json" --size 80x24 --keys "$keys" --out "$tmp/$name.txt" 2>"$tmp/err"; then
    compare "$name" "keys \"$keys\", 80x24"
    # every row within 80 display columns (wc -L measures them under a UTF-8 locale, where there is one)
    if cols=$(LC_ALL=C.UTF-8 wc -L <"$tmp/$name.txt" 2>/dev/null) && [ "$(LC_ALL=C.UTF-8 printf '中' | LC_ALL=C.UTF-8 wc -L)" = 2 ]; then
      if [ "$cols" -le 80 ]; then pass=$((pass + 1)); else echo "FAIL $name: a row is $cols columns wide at 80x24"; fail=$((fail + 1)); fi
    fi
  else
    echo "FAIL $name: spadmap snapshot failed"; sed 's/^/  | /' "$tmp/err"; fail=$((fail + 1))
  fi
done
shows wide_names_selected "…onv_名前がとても長いテンソル_tail"
shows wide_names_selected "step 1/5  左分支_l1_🙂 (op)"
# 80x24 defects (issue 33): the layer view's box covers the map to both edges (one map column
# showed at each side), and a message owns the bottom line (the panel's "Tab: select a tensor
# at the cursor" ran on after "... (the menu m has the ILP ones)")
case_ resnet50_layer_80x24  resnet50 80x24  "I"
if awk 'NR > 1 && NR < 24 { if (substr($0, 1, 1) != " ") bad = 1 }
        END { exit bad }' "$tmp/resnet50_layer_80x24.txt"; then pass=$((pass + 1))
else echo "FAIL resnet50_layer_80x24: a map column shows left of the layer view's box"; fail=$((fail + 1)); fi
case_ diamond_message_80x24 diamond  80x24  "ce"
if [ "$(tail -1 "$tmp/diamond_message_80x24.txt")" = " replacement policy: lru (the menu m has the ILP ones)" ]; then pass=$((pass + 1))
else echo "FAIL diamond_message_80x24: the message line carries other text"; fail=$((fail + 1)); fi
# d: the cursor to the first step where the current and the pinned plan part (the replacement
# lesson's stage 2 asks for it: LRU against a pinned Belady plan on nasnet_a at 1.15 M_R)
case_ nasnet_a_first_difference nasnet_a 120x40 "ced" --budget "M_R*1.15"
shows nasnet_a_first_difference "the plans part at step 15: cells.0.branches.2.pool: spill after step 15 here, free after step 20 pinned"
shows nasnet_a_first_difference "step 15/635"
case_ diamond_first_difference_unpinned diamond 80x24 "d"
shows diamond_first_difference_unpinned "pin a plan first (c), then change a setting: d finds where the two part"
# bad key names are usage errors
"$bin" snapshot "$data/networks/fig1.json" --keys "<Nope>" >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && grep -q "unknown key name" "$tmp/err"; then pass=$((pass + 1)); else echo "FAIL <Nope>"; fail=$((fail + 1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
