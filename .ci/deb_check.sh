#!/usr/bin/env bash
# The .deb on this machine as a user gets it: apt-get installs it with its
# dependencies, spadmap runs from another folder with no environment help, the
# explorer shows the map in a real (tmux) terminal and quits on q, the man page
# and the completion are where Debian looks; then the package is purged.
# usage: .ci/deb_check.sh path/to/spadmap_VERSION_ARCH.deb   (root or sudo)
set -euo pipefail
deb=$(realpath "$1")
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
work=$(mktemp -d)
sock="spadmap-deb-$$"
export TMUX_TMPDIR="$work"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  $SUDO apt-get purge -y -qq spadmap >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL (deb): $*"
  tmux -L "$sock" capture-pane -p -t deb 2>/dev/null | sed 's/^/  | /' || true
  exit 1
}

$SUDO apt-get install -y -qq "$deb" >/dev/null
[ "$(command -v spadmap)" = /usr/bin/spadmap ] || fail "spadmap is not /usr/bin/spadmap: $(command -v spadmap)"
cd "$work"
env -u SPADMAP_DATA spadmap info resnet50 >info.txt || fail "spadmap info resnet50 exited $?"
grep -q '^ops 72, tensors 181' info.txt || fail "spadmap info resnet50 printed: $(cat info.txt)"

# the man page (unless dpkg is told to skip /usr/share/man, as in Debian's container
# images) and the completion, where Debian looks for them
dpkg-deb -c "$deb" | grep '/usr/share/man/man1/spadmap.1.gz$' >/dev/null || fail "the package has no man page"
if command -v man >/dev/null 2>&1 && [ -e /usr/share/man/man1/spadmap.1.gz ]; then
  MANWIDTH=80 man spadmap 2>/dev/null | grep "spadmap solve" >/dev/null || fail "man spadmap does not show the commands"
fi
got=$(bash -c 'source /usr/share/bash-completion/completions/spadmap &&
  COMP_WORDS=(spadmap so) COMP_CWORD=1 && _spadmap && echo "${COMPREPLY[*]}"')
[ "$got" = solve ] || fail "completion of 'spadmap so' gave '$got'"

# the explorer, no argument: resnet50 from /usr/share/spadmap, its map drawn, q quits
tmux -L "$sock" -f /dev/null new-session -d -s deb -x 120 -y 40 \
  "env -u SPADMAP_DATA LANG=C.UTF-8 TERM=xterm-256color spadmap; echo EXITED=\$?; sleep 30"
wait_for() {
  for _ in $(seq 100); do
    tmux -L "$sock" capture-pane -p -t deb 2>/dev/null | grep -q -- "$1" && return 0
    sleep 0.1
  done
  return 1
}
wait_for "resnet50 (72 ops)" || wait_for "resnet50 │" || fail "the status line never named resnet50"
wait_for "solved" || fail "no plan was solved"
wait_for "memory map" || fail "no memory map"
wait_for "budget" || fail "the map has no budget line"
tmux -L "$sock" capture-pane -p -t deb | grep -q "█" || fail "the map has no blocks"
tmux -L "$sock" send-keys -t deb q
wait_for "EXITED=0" || fail "q did not end the explorer with status 0"

$SUDO apt-get purge -y -qq spadmap >/dev/null
[ ! -e /usr/bin/spadmap ] && [ ! -e /usr/share/spadmap ] || fail "purge left files behind"
echo "deb: installed, info resnet50 from $work, explorer shown and quit, purged"
