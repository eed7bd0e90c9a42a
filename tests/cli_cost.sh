#!/bin/sh
# spadmap cost: the JSON's keys and sums, each mapped op's compute_cycles equal
# to `spadmap layer NET OP --json`'s with the same method and arch, below M_R
# through the tiled network, and bad input as one clear line.
# usage: cli_cost.sh SPADMAP DATA_DIR
bin=$1; data=$2
. "$(dirname "$0")/expect.sh"
# jq reads the JSON (Debian's jq); without it the JSON checks are skipped, said so
have_jq=1; command -v jq >/dev/null || { have_jq=0; echo "cli_cost: jq missing, JSON checks skipped"; }
fs=$data/networks/fsrcnn.json
"$bin" cost "$fs" --arch cosa_baseline --budget M_R --method random --json >"$tmp/c.json" || bad "cost fsrcnn --json"
if [ $have_jq = 1 ]; then
  keys=$(jq -c '[keys, (.total | keys), (.ops[0] | keys)]' "$tmp/c.json")
  [ "$keys" = '[["arch","budget","network","ops","total"],["compute_cycles","cycles","dram_bytes","dram_cycles","energy_pj","onchip_cycles"],["compute_cycles","cycles","dram_bytes","dram_cycles","energy_pj","name","onchip_cycles"]]' ] && ok || bad "keys: $keys"
  for k in cycles compute_cycles onchip_cycles dram_cycles dram_bytes; do
    [ "$(jq "([.ops[].$k] | add) == .total.$k" "$tmp/c.json")" = true ] && ok || bad "total.$k is not the sum of the ops'"
    [ "$(jq "[.total.$k, .ops[].$k] | all(. == floor)" "$tmp/c.json")" = true ] && ok || bad "$k not integers"
  done
  [ "$(jq '.ops | length' "$tmp/c.json")" = 8 ] && ok || bad "fsrcnn: 8 ops"
  # every op the layer command maps: the same compute cycles (random: deterministic)
  for op in feature shrink map.0 map.6 expand; do
    want=$("$bin" layer "$fs" "$op" --arch cosa_baseline --method random --json | jq '.compute_cycles')
    got=$(jq --arg op "$op" '.ops[] | select(.name == $op) | .compute_cycles' "$tmp/c.json")
    [ -n "$want" ] && [ "$want" = "$got" ] && ok || bad "$op: cost says $got compute cycles, layer $want"
  done
  # below M_R: the tiled network, the same compute, more DRAM bytes
  "$bin" cost "$fs" --arch cosa_baseline --budget M_R/4 --method random --json >"$tmp/c4.json" || bad "cost M_R/4"
  [ "$(jq -s '.[0].total.compute_cycles == .[1].total.compute_cycles and .[1].total.dram_bytes > .[0].total.dram_bytes' "$tmp/c.json" "$tmp/c4.json")" = true ] && ok || bad "M_R/4: compute changed or DRAM bytes did not grow"
  [ "$(jq '.budget' "$tmp/c4.json")" = $((3411968 / 4)) ] && ok || bad "M_R/4 is not 3411968/4"
fi
expect 0 "below it, the tiled network" "$bin" cost "$fs" --budget M_R/4 --method random
expect 0 "5 ops: 0 by the layer mapper cosa-plus, 5 by the roofline" "$bin" cost "$data/networks/chain.json" --budget M_R
# the text's total row is the JSON's
expect 0 "^total  *716  *26  *26  *704  *11,264" "$bin" cost "$data/networks/chain.json" --budget M_R
expect 2 "needs --budget" "$bin" cost "$fs"
expect 2 'budget "lots"' "$bin" cost "$fs" --budget lots
expect 2 "expected a positive divisor after '/'" "$bin" cost "$fs" --budget M_R/0
expect 2 '--method "steps-row": expected a layer mapper' "$bin" cost "$fs" --budget M_R --method steps-row
expect 1 "cannot open" "$bin" cost "$fs" --budget M_R --arch "$tmp/none.json"
expect 2 'unknown schedule policy "nope"' "$bin" cost "$fs" --budget M_R --schedule nope
expect 1 "cannot open" "$bin" cost "$tmp/none.json" --budget M_R
printf '{"format": "spadmap-arch", "version": 1, "name": "x", "source": "t", "macs": 4,\n "precision": ' >"$tmp/trunc.json"
expect 1 "trunc.json:2:" "$bin" cost "$fs" --budget M_R --arch "$tmp/trunc.json"
echo "cli_cost: $pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
[ $have_jq = 1 ] || { echo "cli_cost: skipped in part (no jq): reported as skipped"; exit 77; }
