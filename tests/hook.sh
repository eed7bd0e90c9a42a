# Test hooks for the shell tests (sourced): a run interrupted at a named stage,
# or its deadline passed at one (engine/testhook.h, docs/reliability.md, "Test
# hooks"). The engine says when it is there: no sleeping, no timing. The one
# clock here is a hang guard (HOOK_GUARD seconds, then SIGKILL: exit 137), which
# only ever fails a test.
# Needs $tmp (a scratch folder), mkfifo, timeout, and env --default-signal
# (coreutils 8.31; hook_usable says whether it is there).
HOOK_GUARD=${HOOK_GUARD:-300}

hook_usable() { command -v mkfifo >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 && env --default-signal=INT true 2>/dev/null; }

# interrupt_at STAGES CMD ARGS... : runs CMD (stdin /dev/null; streams in
# $tmp/out and $tmp/err) pausing at each of STAGES (comma-separated) in turn,
# and sends it SIGINT at each pause (HOOK_MODE=HOLD: held there, deaf to the
# cancel flag, as a stage that never polls; one stage). Sets hook_rc (CMD's exit code) and hook_msg
# (empty, or what went wrong: "never paused at STAGE (exited 0)").
interrupt_at() {
  hook_stages=$1; shift
  hook_msg=; hook_rc=
  rm -f "$tmp/hook"
  mkfifo "$tmp/hook" || { hook_msg="mkfifo failed"; return; }
  (
    # a background job of a non-interactive shell ignores SIGINT: env restores it
    SPADMAP_TEST_HOOK_OUT=$tmp/hook timeout -s KILL "$HOOK_GUARD" \
      env --default-signal=INT "SPADMAP_TEST_${HOOK_MODE:-PAUSE}=$hook_stages" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    echo "exited $?" >"$tmp/hook"
  ) &
  hook_rest=$hook_stages
  while [ -n "$hook_rest" ]; do
    hook_s=${hook_rest%%,*}
    if [ "$hook_rest" = "$hook_s" ]; then hook_rest=; else hook_rest=${hook_rest#*,}; fi
    while hook_line; do
      case $hook_what in
      paused | held) break ;;
      exited)
        hook_rc=$hook_at; hook_msg="never paused at $hook_s (exited $hook_rc${hook_msg:+; $hook_msg})"
        wait; return ;;
      *) hook_msg="$hook_what at $hook_at" ;; # no-cancel-flag: the run goes on, to its end
      esac
    done
    kill -INT "$hook_pid"
  done
  hook_line
  hook_rc=$hook_at
  wait
  [ "$hook_rc" = 137 ] && hook_msg="killed by the hang guard after $HOOK_GUARD s"
  return 0
}

# hook_line: the next line on the FIFO: the engine's "paused STAGE PID", or the
# wrapper's "exited RC". An open that meets only the end of the last writer
# (it had written, not yet closed) reads nothing: open again.
hook_line() {
  while :; do
    hook_what=; hook_at=; hook_pid=
    read -r hook_what hook_at hook_pid <"$tmp/hook"
    [ -n "$hook_what" ] && return 0
  done
}

# deadline_at STAGE CMD ARGS... : runs CMD (stdin /dev/null; streams in $tmp/out
# and $tmp/err) with the clock jumping past its time limit at STAGE. Sets hook_rc
# and hook_msg (empty, or "the deadline never came at STAGE": the stage has no
# poll point, or the run never got there).
deadline_at() {
  hook_s=$1; shift
  hook_msg=
  rm -f "$tmp/hook"
  SPADMAP_TEST_DEADLINE_AT=$hook_s SPADMAP_TEST_HOOK_OUT=$tmp/hook timeout -s KILL "$HOOK_GUARD" \
    "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  hook_rc=$?
  if [ "$hook_rc" = 137 ]; then hook_msg="killed by the hang guard after $HOOK_GUARD s"
  elif ! grep -q "^deadline $hook_s " "$tmp/hook" 2>/dev/null; then hook_msg="the deadline never came at $hook_s"; fi
  return 0
}
