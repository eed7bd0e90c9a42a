// onnx_infer: the only C++ in spadmap. Parses an ONNX ModelProto with Debian's
// libonnx (protobuf), runs ONNX's own shape inference and copies the result into
// the plain C structs of onnx_graph.h. Every exception stops here and becomes an
// SpError; nothing is printed.
#include "onnx_graph.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx_const.h"
#include "onnx_seq.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace {

char *Dup(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

template <typename T> T *Alloc(size_t n) {
  T *p = static_cast<T *>(std::calloc(n ? n : 1, sizeof(T)));
  if (!p) throw std::bad_alloc();
  return p;
}

char **DupList(const std::vector<std::string> &v) {
  char **out = Alloc<char *>(v.size());
  for (size_t i = 0; i < v.size(); i++) out[i] = Dup(v[i]);
  return out;
}

// How much a value's type tells: a known shape beats none, known dims beat unknown.
int Knowledge(const onnx::TypeProto &t) {
  if (!t.has_tensor_type()) return 0;
  const auto &tt = t.tensor_type();
  int k = tt.elem_type() ? 1 : 0;
  if (!tt.has_shape()) return k;
  k += 2;
  for (const auto &d : tt.shape().dim()) k += d.has_dim_value() ? 2 : 0;
  return k;
}

void FillValue(OnnxValue *v, const std::string &name, const onnx::TypeProto &t) {
  v->name = Dup(name);
  v->rank = -1;
  if (!t.has_tensor_type()) return;
  const auto &tt = t.tensor_type();
  v->elem_type = tt.elem_type();
  if (!tt.has_shape()) return;
  int r = tt.shape().dim_size();
  v->rank = r;
  v->dims = Alloc<int64_t>(static_cast<size_t>(r));
  v->dim_params = Alloc<char *>(static_cast<size_t>(r));
  for (int i = 0; i < r; i++) {
    const auto &d = tt.shape().dim(i);
    v->dims[i] = d.has_dim_value() ? d.dim_value() : -1;
    if (!d.has_dim_value() && d.has_dim_param() && !d.dim_param().empty()) v->dim_params[i] = Dup(d.dim_param());
  }
}

void FreeValue(OnnxValue *v) {
  std::free(v->name);
  for (int i = 0; i < v->rank && v->dim_params; i++) std::free(v->dim_params[i]);
  std::free(v->dim_params);
  std::free(v->dims);
}

void FreeList(char **list, int n) {
  for (int i = 0; i < n && list; i++) std::free(list[i]);
  std::free(list);
}

void FixDims(onnx::ValueInfoProto *vi, const std::unordered_map<std::string, int64_t> &dims) {
  if (!vi->type().has_tensor_type() || !vi->type().tensor_type().has_shape()) return;
  auto *shape = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (auto &d : *shape->mutable_dim()) {
    if (d.has_dim_value() || !d.has_dim_param()) continue;
    auto it = dims.find(d.dim_param());
    if (it != dims.end()) d.set_dim_value(it->second); // clears dim_param (a oneof)
  }
}

// Values a subgraph reads from the scopes around it: read but not defined inside.
void OuterReads(const onnx::GraphProto &g, std::vector<std::string> &out, std::unordered_set<std::string> &seen) {
  std::unordered_set<std::string> defined;
  for (const auto &i : g.input()) defined.insert(i.name());
  for (const auto &i : g.initializer()) defined.insert(i.name());
  for (const auto &n : g.node())
    for (const auto &o : n.output()) defined.insert(o);
  auto read = [&](const std::string &name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
  };
  for (const auto &n : g.node()) {
    for (const auto &i : n.input()) read(i);
    for (const auto &a : n.attribute()) {
      std::vector<std::string> inner;
      std::unordered_set<std::string> inner_seen;
      if (a.has_g()) OuterReads(a.g(), inner, inner_seen);
      for (const auto &sg : a.graphs()) OuterReads(sg, inner, inner_seen);
      for (const auto &name : inner) read(name);
    }
  }
  for (const auto &o : g.output()) read(o.name());
}

cJSON *Attrs(const onnx::NodeProto &n) {
  cJSON *obj = cJSON_CreateObject();
  if (!obj) throw std::bad_alloc();
  for (const auto &a : n.attribute()) {
    cJSON *v = nullptr;
    switch (a.type()) {
    case onnx::AttributeProto::INT: v = cJSON_CreateNumber(static_cast<double>(a.i())); break;
    case onnx::AttributeProto::FLOAT: v = cJSON_CreateNumber(a.f()); break;
    case onnx::AttributeProto::STRING: v = cJSON_CreateString(a.s().c_str()); break;
    case onnx::AttributeProto::INTS:
      v = cJSON_CreateArray();
      for (auto x : a.ints()) cJSON_AddItemToArray(v, cJSON_CreateNumber(static_cast<double>(x)));
      break;
    case onnx::AttributeProto::FLOATS:
      v = cJSON_CreateArray();
      for (auto x : a.floats()) cJSON_AddItemToArray(v, cJSON_CreateNumber(x));
      break;
    case onnx::AttributeProto::STRINGS:
      v = cJSON_CreateArray();
      for (const auto &x : a.strings()) cJSON_AddItemToArray(v, cJSON_CreateString(x.c_str()));
      break;
    default: break; // tensors and graphs: not memory-relevant attributes
    }
    if (v) cJSON_AddItemToObject(obj, a.name().c_str(), v);
  }
  return obj;
}

void Copy(const onnx::ModelProto &m, OnnxGraph *g) {
  const auto &graph = m.graph();
  g->name = Dup(graph.name());
  std::string prod = m.producer_name();
  if (!m.producer_version().empty()) prod += (prod.empty() ? "" : " ") + m.producer_version();
  g->producer = Dup(prod);
  g->ir_version = m.ir_version();
  for (const auto &op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") g->opset = op.version();

  // Values: the best-informed entry per name.
  std::unordered_map<std::string, int> index;
  std::vector<std::pair<std::string, const onnx::TypeProto *>> typed;
  auto add = [&](const std::string &name, const onnx::TypeProto &t) {
    auto it = index.find(name);
    if (it == index.end()) {
      index.emplace(name, static_cast<int>(typed.size()));
      typed.emplace_back(name, &t);
    } else if (Knowledge(t) > Knowledge(*typed[static_cast<size_t>(it->second)].second)) {
      typed[static_cast<size_t>(it->second)].second = &t;
    }
  };
  for (const auto &vi : graph.input()) add(vi.name(), vi.type());
  for (const auto &vi : graph.value_info()) add(vi.name(), vi.type());
  for (const auto &vi : graph.output()) add(vi.name(), vi.type());
  // Initializers: the type is the tensor's own data type and dims.
  std::vector<onnx::TypeProto> init_types(static_cast<size_t>(graph.initializer_size()));
  std::unordered_set<std::string> inits;
  for (int i = 0; i < graph.initializer_size(); i++) {
    const auto &t = graph.initializer(i);
    auto *tt = init_types[static_cast<size_t>(i)].mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto *shape = tt->mutable_shape();
    for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
    inits.insert(t.name());
    index.erase(t.name()); // the initializer's own type wins over a declared input's
  }
  for (int i = 0; i < graph.initializer_size(); i++) add(graph.initializer(i).name(), init_types[static_cast<size_t>(i)]);
  g->values = Alloc<OnnxValue>(typed.size());
  for (const auto &kv : index) {
    FillValue(&g->values[g->nvalues], kv.first, *typed[static_cast<size_t>(kv.second)].second);
    g->nvalues++;
  }

  std::vector<std::string> ins, outs, init_names;
  for (const auto &vi : graph.input())
    if (!inits.count(vi.name())) ins.push_back(vi.name());
  for (const auto &vi : graph.output()) outs.push_back(vi.name());
  for (const auto &t : graph.initializer()) init_names.push_back(t.name());
  g->inputs = DupList(ins);
  g->ninputs = static_cast<int>(ins.size());
  g->outputs = DupList(outs);
  g->noutputs = static_cast<int>(outs.size());
  g->initializers = DupList(init_names);
  g->ninitializers = static_cast<int>(init_names.size());

  g->nodes = Alloc<OnnxNode>(static_cast<size_t>(graph.node_size()));
  for (const auto &n : graph.node()) {
    OnnxNode *o = &g->nodes[g->nnodes++];
    o->name = Dup(n.name());
    o->op_type = Dup(n.op_type());
    o->domain = Dup(n.domain());
    std::vector<std::string> ni(n.input().begin(), n.input().end());
    std::vector<std::string> no(n.output().begin(), n.output().end());
    o->inputs = DupList(ni);
    o->ninputs = static_cast<int>(ni.size());
    o->outputs = DupList(no);
    o->noutputs = static_cast<int>(no.size());
    std::vector<std::string> implicit;
    std::unordered_set<std::string> seen(ni.begin(), ni.end());
    for (const auto &a : n.attribute()) {
      if (a.has_g()) OuterReads(a.g(), implicit, seen);
      for (const auto &sg : a.graphs()) OuterReads(sg, implicit, seen);
    }
    o->implicit = DupList(implicit);
    o->nimplicit = static_cast<int>(implicit.size());
    o->attrs = Attrs(n);
  }
}

extern "C" int OnnxGraph_available(void) { return 1; }

extern "C" void OnnxGraph_free(OnnxGraph *g) {
  if (!g) return;
  std::free(g->name);
  std::free(g->producer);
  std::free(g->eval_note);
  for (int i = 0; i < g->nvalues; i++) FreeValue(&g->values[i]);
  std::free(g->values);
  FreeList(g->inputs, g->ninputs);
  FreeList(g->outputs, g->noutputs);
  FreeList(g->initializers, g->ninitializers);
  for (int i = 0; i < g->nnodes; i++) {
    OnnxNode *n = &g->nodes[i];
    std::free(n->name);
    std::free(n->op_type);
    std::free(n->domain);
    FreeList(n->inputs, n->ninputs);
    FreeList(n->outputs, n->noutputs);
    FreeList(n->implicit, n->nimplicit);
    cJSON_Delete(n->attrs);
  }
  std::free(g->nodes);
  std::free(g);
}

// The user's value for graph input vi (--value) as a tensor of the input's type and
// shape (a scalar holds one element; an unknown dimension of a 1-D input takes the
// count); the input's declared shape becomes that shape. "" or why not.
std::string GivenTensor(onnx::ValueInfoProto &vi, const OnnxGiven &gv, onnx::TensorProto &t) {
  using onnx::TensorProto;
  if (!vi.type().has_tensor_type()) return "it is not a tensor";
  auto *tt = vi.mutable_type()->mutable_tensor_type();
  int type = tt->elem_type();
  switch (type) {
  case TensorProto::UINT8: case TensorProto::INT8: case TensorProto::UINT16: case TensorProto::INT16:
  case TensorProto::INT32: case TensorProto::INT64: case TensorProto::UINT32: case TensorProto::UINT64:
  case TensorProto::FLOAT: case TensorProto::DOUBLE: break;
  default: return "its element type (" + std::to_string(type) + ") is not an integer or float type";
  }
  std::vector<int64_t> shape;
  if (!tt->has_shape()) {
    if (gv.n != 1) shape.push_back(gv.n);
  } else {
    int r = tt->shape().dim_size();
    int64_t known = 1;
    int unknown = -1;
    for (int d = 0; d < r; d++) {
      const auto &dim = tt->shape().dim(d);
      if (dim.has_dim_value() && (dim.dim_value() < 0 || dim.dim_value() > gv.n)) // also keeps `known` small
        return "its declared shape does not hold the " + std::to_string(gv.n) + " element" + (gv.n == 1 ? "" : "s") +
               " given (dimension " + std::to_string(d) + " is " + std::to_string(dim.dim_value()) + ")";
      if (dim.has_dim_value()) known *= dim.dim_value(), shape.push_back(dim.dim_value());
      else if (unknown < 0) unknown = d, shape.push_back(-1);
      else return "its shape has more than one unknown dimension";
    }
    if (unknown >= 0 && known > 0 && gv.n % known == 0) shape[size_t(unknown)] = gv.n / known, known = gv.n;
    if (known != gv.n || (unknown >= 0 && shape[size_t(unknown)] < 0))
      return "it holds " + (unknown >= 0 ? std::string("a multiple of ") + std::to_string(known) : std::to_string(known)) +
             " element" + (known == 1 && unknown < 0 ? "" : "s") + ", " + std::to_string(gv.n) + " given";
  }
  auto *sh = tt->mutable_shape();
  sh->clear_dim();
  for (int64_t d : shape) sh->add_dim()->set_dim_value(d);
  t.set_name(vi.name());
  t.set_data_type(type);
  for (int64_t d : shape) t.add_dims(d);
  for (int k = 0; k < gv.n; k++) {
    if (type == TensorProto::FLOAT) t.add_float_data(float(gv.v[k]));
    else if (type == TensorProto::DOUBLE) t.add_double_data(double(gv.v[k]));
    else if (type == TensorProto::INT64) t.add_int64_data(gv.v[k]);
    else if (type == TensorProto::UINT32 || type == TensorProto::UINT64) t.add_uint64_data(uint64_t(gv.v[k]));
    else t.add_int32_data(int32_t(gv.v[k]));
  }
  return "";
}

} // namespace

extern "C" Status OnnxGraph_parse(const void *bytes, size_t len, const char *label, const OnnxDim *dims,
                                  int ndims, const OnnxGiven *given, int ngiven, OnnxGraph **out, SpError *err) {
  *out = nullptr;
  OnnxGraph *g = nullptr;
  try {
    if (len > static_cast<size_t>(INT32_MAX))
      return SpError_set(err, SP_ERR_FORMAT, "%s: %zu bytes: protobuf cannot read a model over 2 GiB", label, len);
    onnx::ModelProto m;
    if (!m.ParseFromArray(bytes, static_cast<int>(len)))
      return SpError_set(err, SP_ERR_FORMAT,
                         "%s: not a valid ONNX model (the protobuf does not parse: truncated or not ONNX)", label);
    if (!m.has_graph() || m.graph().node_size() == 0)
      return SpError_set(err, SP_ERR_FORMAT, "%s: the ONNX model has no graph nodes", label);
    std::unordered_map<std::string, int64_t> fixed;
    for (int i = 0; i < ndims; i++) fixed[dims[i].name] = dims[i].value;
    auto *graph = m.mutable_graph();
    for (auto &vi : *graph->mutable_input()) FixDims(&vi, fixed);
    for (auto &vi : *graph->mutable_value_info()) FixDims(&vi, fixed);
    for (auto &vi : *graph->mutable_output()) FixDims(&vi, fixed);
    OnnxConstGiven values; // --value: graph inputs the shape arithmetic may read
    for (int i = 0; i < ngiven; i++) {
      onnx::ValueInfoProto *vi = nullptr;
      for (auto &in : *graph->mutable_input())
        if (in.name() == given[i].name) vi = &in;
      bool init = false;
      for (const auto &t : graph->initializer()) init |= t.name() == given[i].name;
      if (!vi || init)
        return SpError_set(err, SP_ERR_FORMAT, "%s: --value %.60s: the model has no graph input of that name%s", label,
                           given[i].name, init ? " (it is an initializer: its value is in the file)" : "");
      std::string why = GivenTensor(*vi, given[i], values[given[i].name]);
      if (!why.empty())
        return SpError_set(err, SP_ERR_FORMAT, "%s: --value %.60s: %.200s", label, given[i].name, why.c_str());
    }
    // Shape inference, then the shape arithmetic it leaves (onnx_const.cc) evaluated
    // into initializers, and again until nothing changes. Each round starts from
    // the file's own value_info, so no shape a removed node implied lingers.
    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> declared = graph->value_info();
    OnnxConstLimits limits;
    OnnxConstReport report;
    // A value read but defined nowhere makes libonnx 1.12's data propagation read
    // through a null type (a Shape of an Add of it crashed in the fuzzer): refused
    // here, before inference, with the message the importer gives for it.
    {
      std::unordered_set<std::string> defined;
      for (const auto &vi : graph->input()) defined.insert(vi.name());
      for (const auto &t : graph->initializer()) defined.insert(t.name());
      for (const auto &n : graph->node())
        for (const auto &o : n.output()) defined.insert(o);
      for (int k = 0; k < graph->node_size(); k++)
        for (const auto &i : graph->node(k).input())
          if (!i.empty() && !defined.count(i)) {
            const auto &n = graph->node(k);
            return SpError_set(err, SP_ERR_FORMAT,
                               "%s: node \"%.120s\" (%.40s, node #%d) reads \"%.120s\", which no node, graph input or "
                               "initializer defines",
                               label, n.name().c_str(), n.op_type().c_str(), k, i.c_str());
          }
    }
    // A first pass before any inference, on the declared shapes: a chain from
    // Shape(input) to an absurd Reshape/Expand is refused here, by name, before
    // libonnx 1.12's inference would try to build a tensor of rank 2^63.
    std::string seq_why, seq_error;
    int nsequence = OnnxSeq_lower(m, &values, seq_why, seq_error);
    if (nsequence < 0) return SpError_set(err, SP_ERR_FORMAT, "%s: %.600s", label, seq_error.c_str());
    if (OnnxConst_fold(m, limits, report, &values) < 0)
      return SpError_set(err, SP_ERR_FORMAT, "%s: %.600s", label, report.error.c_str());
    for (int round = 0;; round++) {
      try {
        // no type checks, node errors skipped; no data propagation: onnx_const.cc does that
        // job (and more), and libonnx 1.12's propagation crashed on a value whose
        // producer has no schema (a mutated op type, the fuzzer, ASan)
        onnx::ShapeInferenceOptions opts(false, 0, false);
        onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), opts);
      } catch (const std::exception &e) {
        return SpError_set(err, SP_ERR_FORMAT, "%s: ONNX shape inference failed: %.600s", label, e.what());
      }
      if (round >= 1000) break; // each round removes a node; a bound all the same
      // sequences whose lengths and positions inference has made known
      int lowered = seq_why.empty() ? 0 : OnnxSeq_lower(m, &values, seq_why, seq_error);
      if (lowered < 0) return SpError_set(err, SP_ERR_FORMAT, "%s: %.600s", label, seq_error.c_str());
      nsequence += lowered;
      int removed = OnnxConst_fold(m, limits, report, &values);
      if (removed < 0) return SpError_set(err, SP_ERR_FORMAT, "%s: %.600s", label, report.error.c_str());
      if (removed == 0 && lowered == 0) break;
      *graph->mutable_value_info() = declared;
    }
    g = Alloc<OnnxGraph>(1);
    Copy(m, g);
    g->nevaluated = report.removed;
    g->nsequence = nsequence;
    std::string note = report.capped;
    if (!seq_why.empty()) note += (note.empty() ? "" : "; ") + std::string("its sequences stay sequences: ") + seq_why;
    if (!note.empty()) g->eval_note = Dup(note);
  } catch (const std::bad_alloc &) {
    OnnxGraph_free(g);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory reading the ONNX model", label);
  } catch (const std::exception &e) {
    OnnxGraph_free(g);
    return SpError_set(err, SP_ERR_FORMAT, "%s: cannot read the ONNX model: %.600s", label, e.what());
  } catch (...) {
    OnnxGraph_free(g);
    return SpError_set(err, SP_ERR_FORMAT, "%s: cannot read the ONNX model", label);
  }
  *out = g;
  return SP_OK;
}
