// onnx_seq: see onnx_seq.h.
#include "onnx_seq.h"

#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using onnx::TensorProto;

// The integers a small INT64/INT32 tensor holds; false for another type or no data.
bool IntsOf(const TensorProto &t, std::vector<int64_t> &out) {
  out.clear();
  int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0 || d > 1024) return false;
    n *= d;
  }
  if (n > 1024) return false;
  if (t.data_type() == TensorProto::INT64) {
    if (t.has_raw_data()) {
      if (int64_t(t.raw_data().size()) != n * 8) return false;
      for (int64_t k = 0; k < n; k++) {
        int64_t v;
        std::memcpy(&v, t.raw_data().data() + k * 8, 8);
        out.push_back(v);
      }
    } else out.assign(t.int64_data().begin(), t.int64_data().end());
  } else if (t.data_type() == TensorProto::INT32) {
    if (t.has_raw_data()) {
      if (int64_t(t.raw_data().size()) != n * 4) return false;
      for (int64_t k = 0; k < n; k++) {
        int32_t v;
        std::memcpy(&v, t.raw_data().data() + k * 4, 4);
        out.push_back(v);
      }
    } else out.assign(t.int32_data().begin(), t.int32_data().end());
  } else return false;
  return int64_t(out.size()) == n;
}

bool IsSeqOp(const onnx::NodeProto &n) {
  static const char *const ops[] = {"SequenceEmpty", "SequenceConstruct", "SequenceInsert",    "SequenceErase",
                                    "SequenceAt",    "SequenceLength",    "ConcatFromSequence", "SplitToSequence"};
  if (!(n.domain().empty() || n.domain() == "ai.onnx")) return false;
  for (const char *op : ops)
    if (n.op_type() == op) return true;
  return false;
}

// Does graph g (a subgraph) read any of the names?
bool Reads(const onnx::GraphProto &g, const std::unordered_map<std::string, std::vector<std::string>> &seqs) {
  for (const auto &n : g.node()) {
    for (const auto &i : n.input())
      if (seqs.count(i)) return true;
    for (const auto &a : n.attribute()) {
      if (a.has_g() && Reads(a.g(), seqs)) return true;
      for (const auto &sg : a.graphs())
        if (Reads(sg, seqs)) return true;
    }
  }
  for (const auto &o : g.output())
    if (seqs.count(o.name())) return true;
  return false;
}

onnx::AttributeProto *AddInts(onnx::NodeProto *n, const char *name, const std::vector<int64_t> &v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
  return a;
}

void AddInt(onnx::NodeProto *n, const char *name, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

int64_t AttrInt(const onnx::NodeProto &n, const char *name, int64_t dflt) {
  for (const auto &a : n.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
  return dflt;
}

} // namespace

int OnnxSeq_lower(onnx::ModelProto &m, const OnnxConstGiven *given, std::string &why, std::string &error) {
  onnx::GraphProto *g = m.mutable_graph();
  bool any = false;
  for (const auto &n : g->node()) any |= IsSeqOp(n);
  if (!any) return 0;
  int opset = 1;
  for (const auto &o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = int(o.version());
  // constants: initializers, Constant nodes, --value inputs
  std::unordered_map<std::string, const TensorProto *> consts;
  for (const auto &t : g->initializer()) consts.emplace(t.name(), &t);
  for (const auto &n : g->node())
    if (n.op_type() == "Constant" && n.output_size() == 1 && n.attribute_size() == 1 && n.attribute(0).has_t())
      consts.emplace(n.output(0), &n.attribute(0).t());
  if (given)
    for (const auto &kv : *given) consts.emplace(kv.first, &kv.second);
  // shapes as far as inferred
  std::unordered_map<std::string, std::vector<int64_t>> shapes;
  auto addShape = [&](const onnx::ValueInfoProto &vi) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto &d : vi.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    shapes.emplace(vi.name(), dims);
  };
  for (const auto &vi : g->input()) addShape(vi);
  for (const auto &vi : g->value_info()) addShape(vi);
  for (const auto &t : g->initializer()) shapes[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
  std::unordered_set<std::string> names; // every name in use, for fresh ones
  for (const auto &vi : g->input()) names.insert(vi.name());
  for (const auto &t : g->initializer()) names.insert(t.name());
  for (const auto &n : g->node())
    for (const auto &o : n.output()) names.insert(o);
  auto fresh = [&](const std::string &base) {
    std::string s = base;
    while (names.count(s)) s += "_";
    names.insert(s);
    return s;
  };
  auto nodeName = [](const onnx::NodeProto &n) {
    return "node \"" + n.name().substr(0, 120) + "\" (" + n.op_type() + ")";
  };
  // a constant scalar position (or the default when the input is omitted)
  auto position = [&](const onnx::NodeProto &n, int input, int64_t &pos) -> bool {
    if (n.input_size() <= input || n.input(input).empty()) return true;
    auto it = consts.find(n.input(input));
    std::vector<int64_t> v;
    if (it == consts.end() || !IntsOf(*it->second, v) || v.size() != 1) {
      why = nodeName(n) + ": its position \"" + n.input(input).substr(0, 120) + "\" is not a constant";
      return false;
    }
    pos = v[0];
    return true;
  };

  std::unordered_map<std::string, std::vector<std::string>> seqs;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  std::vector<TensorProto> inits;
  auto intsInit = [&](const std::string &base, const std::vector<int64_t> &v) {
    TensorProto t;
    t.set_name(fresh(base));
    t.set_data_type(TensorProto::INT64);
    t.add_dims(int64_t(v.size()));
    for (int64_t x : v) t.add_int64_data(x);
    inits.push_back(t);
    return t.name();
  };
  int lowered = 0;
  for (const auto &n : g->node()) {
    if (!IsSeqOp(n)) {
      for (const auto &i : n.input())
        if (seqs.count(i)) {
          why = nodeName(n) + " reads the sequence \"" + i.substr(0, 120) + "\"";
          return 0;
        }
      for (const auto &a : n.attribute())
        if ((a.has_g() && Reads(a.g(), seqs)) || [&] {
              for (const auto &sg : a.graphs())
                if (Reads(sg, seqs)) return true;
              return false;
            }()) {
          why = nodeName(n) + ": a subgraph reads a sequence";
          return 0;
        }
      *kept.Add() = n;
      continue;
    }
    lowered++;
    const std::string &op = n.op_type();
    if (n.output_size() != 1 || n.output(0).empty()) {
      why = nodeName(n) + ": expected one output";
      return 0;
    }
    const std::string &out = n.output(0);
    if (op == "SequenceEmpty") {
      seqs[out] = {};
      continue;
    }
    if (op == "SequenceConstruct") {
      for (const auto &i : n.input())
        if (i.empty() || seqs.count(i)) {
          why = nodeName(n) + ": an input is omitted or a sequence";
          return 0;
        }
      seqs[out].assign(n.input().begin(), n.input().end());
      continue;
    }
    if (op == "SplitToSequence") {
      auto sh = shapes.find(n.input_size() > 0 ? n.input(0) : "");
      if (sh == shapes.end()) {
        why = nodeName(n) + ": its input's shape is not known";
        return 0;
      }
      int64_t rank = int64_t(sh->second.size()), axis = AttrInt(n, "axis", 0);
      if (axis < -rank || axis >= rank) {
        error = nodeName(n) + ": axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank);
        return -1;
      }
      if (axis < 0) axis += rank;
      bool keep = AttrInt(n, "keepdims", 1) != 0;
      int64_t dim = sh->second[size_t(axis)];
      std::vector<int64_t> sizes, split;
      bool have_split = n.input_size() > 1 && !n.input(1).empty(), scalar = false;
      if (have_split) {
        auto it = consts.find(n.input(1));
        if (it == consts.end() || !IntsOf(*it->second, split) || it->second->dims_size() > 1 || split.empty()) {
          why = nodeName(n) + ": its split \"" + n.input(1).substr(0, 120) + "\" is not a constant";
          return 0;
        }
        scalar = it->second->dims_size() == 0;
      }
      if (dim < 0 && (!have_split || scalar)) {
        why = nodeName(n) + ": the size of its input along axis " + std::to_string(axis) + " is not known";
        return 0;
      }
      // a bound on the tensors one split makes (each becomes a value of the network)
      const int64_t max_pieces = 4096;
      if ((!have_split && dim > max_pieces) || (scalar && split[0] > 0 && dim / split[0] >= max_pieces)) {
        why = nodeName(n) + ": it would make more than " + std::to_string(max_pieces) + " tensors";
        return 0;
      }
      if (!have_split) sizes.assign(size_t(dim), 1);
      else if (scalar) {
        if (split[0] < 1) {
          error = nodeName(n) + ": split " + std::to_string(split[0]) + " is not positive";
          return -1;
        }
        for (int64_t left = dim; left > 0; left -= split[0]) sizes.push_back(left < split[0] ? left : split[0]);
      } else {
        int64_t sum = 0;
        for (int64_t s : split) {
          if (s < 0) {
            error = nodeName(n) + ": a negative split";
            return -1;
          }
          sum += s;
        }
        if (dim >= 0 && sum != dim) {
          error = nodeName(n) + ": its splits sum to " + std::to_string(sum) + ", the axis holds " + std::to_string(dim);
          return -1;
        }
        sizes = split;
      }
      if (sizes.empty()) {
        why = nodeName(n) + ": it splits an empty axis (a sequence of no tensors)";
        return 0;
      }
      onnx::NodeProto *s = kept.Add();
      s->set_name(n.name());
      s->set_op_type("Split");
      s->add_input(n.input(0));
      if (opset >= 13) s->add_input(intsInit(out + "/split", sizes));
      else AddInts(s, "split", sizes);
      AddInt(s, "axis", axis);
      bool squeeze = !have_split && !keep;
      std::vector<std::string> &elems = seqs[out];
      for (size_t k = 0; k < sizes.size(); k++) {
        std::string piece = fresh(out + "/" + std::to_string(k) + (squeeze ? "/kept" : ""));
        s->add_output(piece);
        if (!squeeze) {
          elems.push_back(piece);
          continue;
        }
        onnx::NodeProto *q = kept.Add();
        q->set_name(n.name() + "/squeeze_" + std::to_string(k));
        q->set_op_type("Squeeze");
        q->add_input(piece);
        if (opset >= 13) q->add_input(intsInit(out + "/axes", {axis}));
        else AddInts(q, "axes", {axis});
        elems.push_back(fresh(out + "/" + std::to_string(k)));
        q->add_output(elems.back());
      }
      continue;
    }
    auto it = seqs.find(n.input_size() > 0 ? n.input(0) : "");
    if (it == seqs.end()) {
      why = nodeName(n) + " reads \"" + (n.input_size() > 0 ? n.input(0).substr(0, 120) : "") +
            "\", a sequence not built from tensors here (a graph input, or an If or Loop's output)";
      return 0;
    }
    std::vector<std::string> list = it->second;
    int64_t len = int64_t(list.size());
    if (op == "SequenceInsert" || op == "SequenceErase" || op == "SequenceAt") {
      bool insert = op == "SequenceInsert";
      int64_t pos = insert ? len : len - 1;
      if (!position(n, insert ? 2 : 1, pos)) return 0;
      if (op == "SequenceAt" && n.input_size() < 2) {
        why = nodeName(n) + ": no position";
        return 0;
      }
      int64_t hi = insert ? len : len - 1;
      if (pos < -len || pos > hi) {
        error = nodeName(n) + ": position " + std::to_string(pos) + " is outside the sequence of " + std::to_string(len) +
                " tensor" + (len == 1 ? "" : "s");
        return -1;
      }
      if (pos < 0) pos += len;
      if (insert) {
        if (n.input_size() < 2 || n.input(1).empty()) {
          why = nodeName(n) + ": no tensor to insert";
          return 0;
        }
        list.insert(list.begin() + pos, n.input(1));
        seqs[out] = list;
      } else if (op == "SequenceErase") {
        list.erase(list.begin() + pos);
        seqs[out] = list;
      } else {
        onnx::NodeProto *c = kept.Add();
        c->set_name(n.name());
        c->set_op_type("Identity");
        c->add_input(list[size_t(pos)]);
        c->add_output(out);
      }
      continue;
    }
    if (op == "SequenceLength") {
      onnx::NodeProto *c = kept.Add();
      c->set_name(n.name());
      c->set_op_type("Constant");
      auto *a = c->add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(TensorProto::INT64);
      a->mutable_t()->add_int64_data(len);
      c->add_output(out);
      continue;
    }
    // ConcatFromSequence
    if (list.empty()) {
      why = nodeName(n) + ": the sequence is empty";
      return 0;
    }
    int64_t axis = AttrInt(n, "axis", 0);
    onnx::NodeProto *cat = nullptr;
    std::vector<std::string> parts = list;
    if (AttrInt(n, "new_axis", 0) != 0) {
      for (size_t k = 0; k < list.size(); k++) {
        onnx::NodeProto *u = kept.Add();
        u->set_name(n.name() + "/unsqueeze_" + std::to_string(k));
        u->set_op_type("Unsqueeze");
        u->add_input(list[k]);
        if (opset >= 13) u->add_input(intsInit(out + "/axes", {axis}));
        else AddInts(u, "axes", {axis});
        parts[k] = fresh(out + "/" + std::to_string(k));
        u->add_output(parts[k]);
      }
    }
    cat = kept.Add();
    cat->set_name(n.name());
    cat->set_op_type("Concat");
    for (const auto &p : parts) cat->add_input(p);
    AddInt(cat, "axis", axis);
    cat->add_output(out);
  }
  // a reader earlier in the file than the sequence it reads (not in order): left alone
  for (const auto &k : kept)
    for (const auto &i : k.input())
      if (seqs.count(i)) {
        why = nodeName(k) + " reads the sequence \"" + i.substr(0, 120) + "\" before it is built";
        return 0;
      }
  for (const auto &o : g->output())
    if (seqs.count(o.name())) {
      why = "graph output \"" + o.name().substr(0, 120) + "\" is a sequence";
      return 0;
    }
  g->mutable_node()->Swap(&kept);
  for (auto &t : inits) *g->add_initializer() = std::move(t);
  why.clear();
  return lowered;
}
