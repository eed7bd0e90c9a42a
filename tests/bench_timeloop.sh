#!/bin/sh
# bench layer --timeloop: Timeloop v1.0's Hybrid mapper as the referee, on ResNet-50's fc
# (a second of Hybrid). Uses $TIMELOOP_DIR (timeloop-mapper, timeloop-model and their
# library) when set, else PATH; without Timeloop the bench itself says SKIP and exits 77.
# usage: bench_timeloop.sh SPADMAP
bin=$1
if [ -n "$TIMELOOP_DIR" ]; then set -- --timeloop "$TIMELOOP_DIR"; else set -- --timeloop-path; fi
out=$("$bin" bench layer --arch cosa_baseline --ops fc --timeloop-cap 120 "$@" 2>&1); rc=$?
echo "$out"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
for want in "geomean vs Timeloop Hybrid (Timeloop cycles): cosa " "geomean vs Timeloop Hybrid (Timeloop energy): cosa " \
            "1_1_2048_1000_1" "time per layer: Hybrid"; do
  case $out in *"$want"*) ;; *) echo "FAIL: no \"$want\""; exit 1 ;; esac
done
# fc has one mapping worth having: every method and Hybrid land on the same cycles
echo "$out" | grep -q '^1_1_2048_1000_1 .* 1.00x *1.00x' || { echo "FAIL: fc's cycles differ from Hybrid's"; exit 1; }
echo "ok"
