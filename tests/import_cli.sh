#!/bin/sh
# Importing models from the command line: `spadmap info|solve|validate|snapshot`
# on an ONNX model and on a COSMA authors' DAG JSON, `spadmap import`, and the
# malformed files (exit 1 with the file and what is wrong). The ONNX half skips
# (77) when spadmap was built without libonnx.
# usage: import_cli.sh SPADMAP DATA_DIR TEST_DIR
bin=$1; data=$2; tests=$3
. "$(dirname "$0")/expect.sh"
check() { # DESCRIPTION SHELL-CONDITION
  if sh -c "$2"; then ok; else bad "$1"; fi
}
dag=$tests/data/dag/diamond_dag.json
# the COSMA authors' DAG JSON: detected, figures by hand (see test_import_dag.c)
expect 0 "M_P .*18,432" "$bin" info "$dag"
expect 0 "COSMA authors' DAG" "$bin" info "$dag"
expect 0 "validator      valid" "$bin" solve "$dag" --budget M_R --out "$tmp/dag_plan.json"
expect 0 "valid: " "$bin" validate "$dag" "$tmp/dag_plan.json"
expect 0 "wrote .*dag.json" "$bin" import "$dag" --out "$tmp/dag.json"
expect 0 "M_P .*18,432" "$bin" info "$tmp/dag.json"
printf '{"name": "x", "dag": [], "tensor_sizes": {\n  "a": 1,' >"$tmp/cut_dag.json"
expect 1 "cut_dag.json:2:" "$bin" info "$tmp/cut_dag.json"
expect 0 "usage: spadmap import MODEL" "$bin" import --help
expect 2 "missing arguments" "$bin" import
expect 2 "expected int8" "$bin" import "$dag" --dtype int4
expect 2 "expected NAME=SIZE" "$bin" import "$dag" --dim batch

if "$bin" import "$tests/data/onnx/good_diamond.onnx" 2>&1 | grep -q "without ONNX support"; then
  echo "import_cli: $pass passed, $fail failed; ONNX skipped: built without libonnx"
  [ "$fail" -eq 0 ] && exit 77
  exit 1
fi
onnx=$data/onnx/tiny_cnn.onnx
# an exported model opens directly in every command
expect 0 "M_R  *98,304" "$bin" info "$onnx"
expect 0 "validator      valid" "$bin" solve "$onnx" --budget M_R --out "$tmp/plan.json"
expect 0 "valid: " "$bin" validate "$onnx" "$tmp/plan.json"
expect 0 "tiny_cnn" "$bin" snapshot "$onnx" --size 100x30
# import writes the contract's JSON; --fold --dtype int8 as the bundled networks
expect 0 "wrote .*tiny.json" "$bin" import "$onnx" --fold --dtype int8 --out "$tmp/tiny.json"
expect 0 '"spadmap-network"' cat "$tmp/tiny.json"
expect 0 '"fused":\["batch_norm","relu"\]' cat "$tmp/tiny.json"
expect 0 "M_R  *24,576" "$bin" info "$tmp/tiny.json"
expect 0 '"name":"x","shape":\[1,3,32,32\]' "$bin" import "$onnx"
# symbolic dimensions: an error naming the value, or --dim
expect 1 'value "x" (graph input): dimension 0 is the symbolic "batch"' "$bin" info "$data/onnx/tiny_cnn_dynamic.onnx"
expect 0 '"shape":\[3,3,32,32\]' "$bin" import "$data/onnx/tiny_cnn_dynamic.onnx" --dim batch=3
# transformers as torch writes them: the shape arithmetic evaluated at import, counted on the source line
expect 0 "14 shape ops evaluated at import, 15 weight-only ops folded into params" "$bin" info "$data/onnx/transformer_encoder.onnx"
expect 0 "minimum peak, exact" "$bin" info "$data/onnx/swin_small.onnx"
expect 0 "validator      valid" "$bin" solve "$data/onnx/vit_small.onnx" --budget M_R --out "$tmp/vit_plan.json"
expect 0 "valid: " "$bin" validate "$data/onnx/vit_small.onnx" "$tmp/vit_plan.json"
# malformed files: exit 1, the file and what is wrong
bad=$tests/data/onnx
expect 1 "bad_truncated.onnx: not a valid ONNX model" "$bin" info "$bad/bad_truncated.onnx"
expect 1 'reads "ghost", which no node' "$bin" info "$bad/bad_undefined.onnx"
expect 1 "cycle" "$bin" solve "$bad/bad_cycle.onnx" --budget 1M
expect 1 "unknown ONNX element type 99" "$bin" import "$bad/bad_elem_type.onnx"
expect 1 'value "y" is defined twice' "$bin" snapshot "$bad/bad_twice.onnx"
head -c 0 "$onnx" >"$tmp/empty.onnx"
expect 1 "empty.onnx" "$bin" info "$tmp/empty.onnx"
# --dim, --dtype and --fold on every command that opens a model, not only import
expect 1 'give its size with --dim batch=N' "$bin" solve "$data/onnx/tiny_cnn_dynamic.onnx" --budget M_R
expect 0 "ops 8, tensors 15" "$bin" info "$data/onnx/tiny_cnn_dynamic.onnx" --dim batch=2
expect 0 "validator      valid" "$bin" solve "$data/onnx/tiny_cnn_dynamic.onnx" --dim batch=2 --budget M_R
expect 0 "tiny_cnn_dynamic" "$bin" snapshot "$data/onnx/tiny_cnn_dynamic.onnx" --dim batch=2
expect 2 'expected int8, uint8' "$bin" solve "$onnx" --dtype fp64 --budget M_R
expect 2 'expected NAME=SIZE' "$bin" tui "$onnx" --dim batch
b=$bin o=$onnx t=$tmp check "info --dtype int8 --fold prices and folds as import does" \
  '[ -n "$("$b" info "$o" --dtype int8 --fold | grep M_R)" ] && [ "$("$b" info "$o" --dtype int8 --fold | grep M_R)" = "$("$b" import "$o" --dtype int8 --fold --out "$t/f.json" >/dev/null && "$b" info "$t/f.json" | grep M_R)" ]'
# import options travel with the plan: a plan made from a model with --fold --dtype --dim
# records them ("import"), and validate / snapshot --plan re-import the model the same way
dyn=$data/onnx/tiny_cnn_dynamic.onnx
expect 0 "validator      valid" "$bin" solve "$dyn" --fold --dtype int8 --dim batch=2 --budget M_R --out "$tmp/rec.json"
expect 0 '"import": {"format":"onnx","file":"tiny_cnn_dynamic.onnx","fold":true,"dtype":"int8","dims":{"batch":2}}' cat "$tmp/rec.json"
expect 0 "note: .*re-imported with --fold --dtype int8 --dim batch=2, as the plan records" "$bin" validate "$dyn" "$tmp/rec.json"
expect 0 "^valid: .*rec.json" "$bin" validate "$dyn" "$tmp/rec.json"
# options given on the command line win, and the note says the plan differs (here: unfolded ops never run)
expect 1 "never runs" "$bin" validate "$dyn" "$tmp/rec.json" --dim batch=2
expect 1 "note: the plan was made with --fold --dtype int8 --dim batch=2; .* is imported with --dim batch=2 as given" "$bin" validate "$dyn" "$tmp/rec.json" --dim batch=2
expect 0 "re-imported with --fold" "$bin" snapshot "$dyn" --plan "$tmp/rec.json" --size 200x30
# a network JSON written by import records them too, and plans made from it carry them on
expect 0 '"import": {"format":"onnx","file":"tiny_cnn.onnx","fold":true,"dtype":"int8","dims":{}}' cat "$tmp/tiny.json"
expect 0 "validator      valid" "$bin" solve "$tmp/tiny.json" --budget M_R --out "$tmp/rec2.json"
expect 0 "re-imported with --fold --dtype int8, as the plan records" "$bin" validate "$onnx" "$tmp/rec2.json"
# a network JSON imported otherwise than the plan's model: the note says why first (it
# printed only the violations, every size and op differing)
expect 0 "wrote" "$bin" import "$onnx" --out "$tmp/plain.json"
expect 1 "^note: the plan records its model opened with --fold --dtype int8; .*plain.json was imported with no options: .spadmap import MODEL --fold --dtype int8 --out NET.json" "$bin" validate "$tmp/plain.json" "$tmp/rec2.json"
b=$bin t=$tmp check "the same options: no note" '! "$b" validate "$t/tiny.json" "$t/rec2.json" | grep -q note'
# below M_R the hint tiles the model as it was opened: offchip reads network files as
# they are, so a model opened with options is imported first (the hint dropped --dtype)
expect 1 "tile it with .spadmap import .*tiny_cnn.onnx --fold --dtype int8 --out N.json., .spadmap offchip N.json --budget" "$bin" solve "$onnx" --fold --dtype int8 --budget M_R/2
expect 1 "tile it with .spadmap offchip .*tiny_cnn.onnx --budget" "$bin" solve "$onnx" --budget M_R/2
# a plan without a record (made from a hand-written network) is validated as before: no note
expect 0 "valid: " "$bin" validate "$onnx" "$tmp/plan.json"
b=$bin o=$onnx t=$tmp check "a plan from the unfolded model records no options, validate says nothing more" \
  '! "$b" validate "$o" "$t/plan.json" | grep -q note'
# a broken record is a clear error, not a silent default
sed 's/"fold":true/"fold":"yes"/' "$tmp/rec.json" >"$tmp/badrec.json"
expect 1 'badrec.json: import.fold: expected true or false' "$bin" validate "$dyn" "$tmp/badrec.json"
# --value: a graph input's value where sizes follow from it (ONNX's expanded window
# functions, Debian's libonnx-testdata when installed): suggested, recorded, re-imported
win=/usr/share/libonnx-testdata/data/node/test_hannwindow_expanded/model.onnx
if [ -f "$win" ]; then
  expect 1 'depends on the data.*give it: --value x=V' "$bin" info "$win"
  expect 0 "validator      valid" "$bin" solve "$win" --value x=10 --budget M_R --out "$tmp/win.json"
  expect 0 '"values":{"x":\[10\]}' cat "$tmp/win.json"
  expect 0 "re-imported with --value x=10, as the plan records" "$bin" validate "$win" "$tmp/win.json"
  expect 2 '--value x: "ten" is not an integer' "$bin" info "$win" --value x=ten
  expect 1 'it holds 1 element, 2 given' "$bin" info "$win" --value x=10,12
fi
expect 2 '--value applies to ONNX models' "$bin" info "$dag" --value x=1
# offchip, cost, sweep, layers and layer open a model with the import options as solve does:
# each prints exactly what it prints for the network `import` writes with the same options
# (before: "unknown option --dtype"), and differs from the model opened without them
expect 0 "wrote" "$bin" import "$onnx" --fold --dtype int8 --out "$tmp/t8.json"
same() { # DESCRIPTION COMMAND [OP] -- OPTIONS...: NET as the model with --fold --dtype int8, and as t8.json
  desc=$1; cmd=$2; op=; shift 2
  [ "$1" != "--" ] && { op=$1; shift; }
  shift
  "$bin" "$cmd" "$onnx" $op "$@" --fold --dtype int8 2>&1 | grep -v ' s)$\|^time  ' >"$tmp/m.out"
  "$bin" "$cmd" "$tmp/t8.json" $op "$@" 2>&1 | grep -v ' s)$\|^time  ' >"$tmp/j.out"
  "$bin" "$cmd" "$onnx" $op "$@" 2>&1 | grep -v ' s)$\|^time  ' >"$tmp/f.out"
  # layer shapes count elements: --dtype leaves layers and layer as they are (differ=no)
  if cmp -s "$tmp/m.out" "$tmp/j.out" && { [ "$differ" = no ] || ! cmp -s "$tmp/m.out" "$tmp/f.out"; } &&
     ! grep -q "unknown option" "$tmp/m.out"; then ok
  else bad "$desc: the model with --fold --dtype int8 is not the imported network"; diff "$tmp/m.out" "$tmp/j.out" | head -4 | sed 's/^/  | /'; fi
}
same "offchip" offchip -- --budget 16K
same "cost" cost -- --budget 16K --method random
same "sweep" sweep -- --points 2 --csv
differ=no
same "layers" layers --
same "layer" layer /conv2/Conv -- --method random
differ=
expect 2 "--dtype opens a model: give NET OP" "$bin" layer 3_3_56_64_1 --dtype int8
expect 2 "--dtype applies to ONNX models; resnet50 is a spadmap-network file" "$bin" cost resnet50 --budget M_R --dtype int8
mkdir "$tmp/jobs"
expect 0 "wrote" "$bin" sweep "$onnx" --points 2 --fold --dtype int8 --jobs "$tmp/jobs"
expect 0 " --dtype 'int8' --fold --out " cat "$tmp/jobs/jobs.txt"
echo "import_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
