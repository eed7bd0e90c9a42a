#!/bin/bash
# --help, `spadmap help`, the man page and the bash completion say the same: for
# every command and subcommand (read from the help texts), `help CMD` prints what
# `CMD --help` prints, the man page's section lists exactly its options, and the
# completion offers exactly them; the completion also offers commands, bundled
# networks, arch names and policies; the man page renders (man -l when man-db is
# there, else a structural check of the roff).
# usage: help_test.sh SPADMAP MANPAGE COMPLETION_SCRIPT
bin=$1; man1=$2; comp=$3
. "$(dirname "$0")/expect.sh"
cd "$tmp" || exit 1 # an empty folder: no file names among the completions

# the commands, from `spadmap --help`; bench's subcommands, from `spadmap bench --help`
cmds=$("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && !/^commands:/ {print $1}')
subs=$("$bin" bench --help | sed -n '/^subcommands/,/^$/p' | awk '$1 == "bench" {print $2}')
[ "$(echo "$cmds" | wc -l)" -ge 14 ] || bad "too few commands read from --help: $cmds"
[ "$(echo "$subs" | wc -l)" -ge 7 ] || bad "too few bench subcommands: $subs"
all=$(echo "$cmds"; for s in $subs; do echo "bench $s"; done)
# every command's line in `spadmap --help` is a sentence: a capital first, a full stop last
# (import's read "convert an ONNX model ... directly too)")
"$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && !/^commands:/ {$1 = ""; print substr($0, 2)}' >"$tmp/summaries"
if grep -v '^[A-Z].*\.$' "$tmp/summaries" >"$tmp/unsentenced"; then bad "not a sentence in --help: $(cat "$tmp/unsentenced")"; else ok; fi

source "$comp"
# complete WORDS...: what _spadmap offers for the last word (may be empty)
complete_words() {
  COMP_WORDS=("$bin" "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _spadmap
  printf '%s\n' "${COMPREPLY[@]}" | sort -u | sed '/^$/d'
}
# the man page's section of a command: from .SS "spadmap CMD" to the next .SS/.SH
man_section() { sed 's/\\-/-/g' "$man1" | awk -v h=".SS \"spadmap $1\"" '$0 == h {on = 1; next} on && /^\.S[SH]/ {exit} on'; }

while IFS= read -r c; do
  # shellcheck disable=SC2086
  "$bin" $c --help >"$tmp/h1" 2>&1; r1=$?
  # shellcheck disable=SC2086
  "$bin" help $c >"$tmp/h2" 2>&1; r2=$?
  if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && cmp -s "$tmp/h1" "$tmp/h2"; then ok; else bad "spadmap help $c differs from spadmap $c --help (exit $r2 / $r1)"; fi
  grep -E '^  --[a-z]' "$tmp/h1" | awk '{print $1}' | sort -u >"$tmp/opts"
  [ -s "$tmp/opts" ] || bad "$c: no options read from its --help"
  man_section "$c" | sed 's/\\-/-/g' | sed -n 's/^\.B \(--[a-z0-9-]*\).*/\1/p' | sort -u >"$tmp/manopts"
  if cmp -s "$tmp/opts" "$tmp/manopts"; then ok; else bad "$c: man page options differ from --help: $(diff "$tmp/opts" "$tmp/manopts" | grep '^[<>]' | tr '\n' ' ')"; fi
  # the size caps of the files it reads: the same in --help and the man page
  caps=$(sed -n '/^input files (/{n;s/^  //;p;}' "$tmp/h1")
  mancaps=$(man_section "$c" | sed -n 's/^Input files over their size cap are refused: \(.*\)\.$/\1/p')
  if [ "$caps" = "$mancaps" ]; then ok; else bad "$c: size caps differ: --help '$caps', man '$mancaps'"; fi
  # shellcheck disable=SC2086
  complete_words $c -- | grep '^--' >"$tmp/compopts"
  if cmp -s "$tmp/opts" "$tmp/compopts"; then ok; else bad "$c: completion differs from --help: $(diff "$tmp/opts" "$tmp/compopts" | grep '^[<>]' | tr '\n' ' ')"; fi
done <<EOF2
$all
EOF2

# the man page has every command, and nothing else
grep '^\.SS "spadmap ' "$man1" | sed 's/\\-/-/g; s/^\.SS "spadmap \(.*\)"$/\1/' | sort >"$tmp/mancmds"
echo "$all" | sort >"$tmp/cmds"
if cmp -s "$tmp/cmds" "$tmp/mancmds"; then ok; else bad "man page commands differ: $(diff "$tmp/cmds" "$tmp/mancmds" | grep '^[<>]' | tr '\n' ' ')"; fi
# every exit code --help lists is in the man page's EXIT STATUS
for code in 0 1 2 3 130 129 143; do
  "$bin" --help | grep -q "[ ,]$code " || bad "--help does not list exit code $code"
  sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$man1" | grep -q "^\.B $code$" && ok || bad "man page: no exit code $code"
done
# the keys: one entry per action, each with its action name
nkeys=$(sed -n '/^\.SH EXPLORER KEYS/,/^\.SH/p' "$man1" | grep -c '^\.TP')
[ "$nkeys" -ge 30 ] && ok || bad "man page: $nkeys explorer keys"
sed -n '/^\.SH EXPLORER KEYS/,/^\.SH/p' "$man1" | grep -q '^quit the explorer\|\[quit\]$' && ok || bad "man page: no quit key"

# completion beyond the options
expect() { # expect "WORDS" WORD...: each WORD is offered for the completion of WORDS
  local words=$1; shift
  # shellcheck disable=SC2086
  local got; got=$(complete_words $words)
  for w in "$@"; do
    if echo "$got" | grep -qx -- "$w"; then ok; else bad "completing '$words': no $w in: $(echo $got)"; fi
  done
}
# shellcheck disable=SC2086
expect "''" $cmds help resnet50 diamond
expect "info res" resnet50 resnet101
expect "solve diamond --schedule ''" default mpmf cosma dnc
expect "solve diamond --replacement ''" belady lru greedy ilp
expect "solve diamond --allocator ''" linear first-fit pack
expect "layer 3_7_512_512_1 --arch cosa" cosa_baseline cosa_4xpe cosa_sram
expect "layer 3_7_512_512_1 --method ''" cosa random exhaustive smartshuttle steps-ilp
# shellcheck disable=SC2086
expect "bench ''" $subs --network
# shellcheck disable=SC2086
expect "help ''" $cmds
# shellcheck disable=SC2086
expect "help bench ''" $subs
expect "bench pack --t" --time-limit --tight-only
n=$(complete_words info --json res | grep -c -v '^res')
[ "$n" -eq 0 ] && ok || bad "completing 'info --json res' offered $n words not starting with res"

# help's own errors
"$bin" help nosuch >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "help nosuch: expected exit 2"
"$bin" help bench nosuch >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "help bench nosuch: expected exit 2"

# the man page renders
head -3 "$man1" | grep -q '^\.TH SPADMAP 1 ' && ok || bad "no .TH SPADMAP 1 header"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXPLORER KEYS" "EXIT STATUS" ENVIRONMENT FILES; do
  grep -q "^\.SH $s$" "$man1" && ok || bad "man page: no section $s"
done
bad_req=$(grep -E '^[.'"'"']' "$man1" | grep -vE '^\.(\\"|TH|SH|SS|TP|B|I|PP|br|BR|IR)( |$)' | head -3)
[ -z "$bad_req" ] && ok || bad "man page: unexpected roff requests: $bad_req"
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man --warnings -l "$man1" >"$tmp/man.txt" 2>"$tmp/man.err"
  if [ -s "$tmp/man.err" ] || ! grep -q "spadmap solve" "$tmp/man.txt"; then bad "man -l: $(head -3 "$tmp/man.err")"; else ok; fi
else
  echo "note: man is not installed; the roff was checked structurally only"
fi

echo "help/man/completion: $pass passed, $fail failed"
[ $fail -eq 0 ]
