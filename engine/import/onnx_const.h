// onnx_const: the import-time evaluator of an ONNX graph's shape arithmetic (C++,
// internal to onnx_infer.cc). Exporters compute sizes at run time
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape/Slice/Expand/Pad); once the
// input sizes are fixed those values are constants. OnnxConst_fold evaluates every
// node of a small op set whose inputs are known (initializers with data, Constant
// nodes, values evaluated before it, and for Shape/Size only the input's inferred
// shape), writes the results as initializers and removes the nodes that only
// computed them. The caller runs shape inference again and repeats until nothing
// changes. Bounded: no evaluated tensor holds more than OnnxConst_limits.max_elems
// elements, a pass no more than max_total; a value past a cap is left to the
// graph (its node stays) and named in OnnxConstReport.capped.
#ifndef SPADMAP_ONNX_CONST_H
#define SPADMAP_ONNX_CONST_H

#include <cstdint>
#include <string>
#include <unordered_map>

#include <onnx/onnx_pb.h>

struct OnnxConstLimits {
  int64_t max_elems = 65536;        // one evaluated tensor (a 256 x 256 mask)
  int64_t max_total = int64_t(1) << 22; // every tensor a pass evaluates (32 MiB as doubles)
};

struct OnnxConstReport {
  int removed = 0;       // nodes this pass evaluated and took out of the graph
  std::string capped;    // the first value left unevaluated for a cap, and why
  std::string error;     // set when a node's constant inputs are invalid for it
};

// Graph inputs whose values the user gave (--value), by name: known to the
// evaluator like initializers, while the inputs stay inputs.
using OnnxConstGiven = std::unordered_map<std::string, onnx::TensorProto>;

// One pass over m's main graph (its shapes already inferred). Returns the number of
// nodes removed (0: nothing more to do), or -1 with report.error set.
int OnnxConst_fold(onnx::ModelProto &m, const OnnxConstLimits &limits, OnnxConstReport &report,
                   const OnnxConstGiven *given = nullptr);

#endif
