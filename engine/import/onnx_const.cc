// onnx_const: see onnx_const.h. Values are held as int64 (integer and bool types)
// or double (FLOAT, DOUBLE); FLOAT16/BFLOAT16 and strings are not evaluated. Every
// element count is checked against the caps before anything is allocated, and
// every index a model supplies is checked, so a hostile model gets an error or is
// left alone, never a crash.
#include "onnx_const.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using onnx::TensorProto;

struct CT { // a constant tensor
  int type = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> i; // integer and bool types
  std::vector<double> f;  // FLOAT, DOUBLE
  bool isFloat() const { return type == TensorProto::FLOAT || type == TensorProto::DOUBLE; }
  int64_t size() const { return isFloat() ? int64_t(f.size()) : int64_t(i.size()); }
  double at(int64_t k) const { return isFloat() ? f[size_t(k)] : double(i[size_t(k)]); }
};

enum Ev { EV_OK, EV_SKIP, EV_ERROR };

bool IsInt(int t) {
  switch (t) {
  case TensorProto::UINT8: case TensorProto::INT8: case TensorProto::UINT16: case TensorProto::INT16:
  case TensorProto::INT32: case TensorProto::INT64: case TensorProto::BOOL: case TensorProto::UINT32:
  case TensorProto::UINT64: return true;
  default: return false;
  }
}
bool Supported(int t) { return IsInt(t) || t == TensorProto::FLOAT || t == TensorProto::DOUBLE; }

// An integer as a value of type t holds it (two's complement wrap, as C casts do).
int64_t Wrap(int t, int64_t v) {
  switch (t) {
  case TensorProto::UINT8: return int64_t(uint8_t(v));
  case TensorProto::INT8: return int64_t(int8_t(v));
  case TensorProto::UINT16: return int64_t(uint16_t(v));
  case TensorProto::INT16: return int64_t(int16_t(v));
  case TensorProto::INT32: return int64_t(int32_t(v));
  case TensorProto::UINT32: return int64_t(uint32_t(v));
  case TensorProto::BOOL: return v != 0;
  default: return v;
  }
}

// Element count of dims, or -1 when negative or past cap.
int64_t Count(const std::vector<int64_t> &dims, int64_t cap) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) n = 0;
    else if (n > cap / d) return -1;
    else n *= d;
  }
  return n <= cap ? n : -1;
}

struct Ctx {
  explicit Ctx(const OnnxConstLimits &l) : lim(l) {}
  const OnnxConstLimits &lim;
  int64_t total = 0;
  std::string why; // EV_ERROR's message, EV_SKIP's reason when it is a cap
  bool capped = false;
};

// Makes t hold n elements of type `type` and `dims` (checked against the caps).
Ev Make(Ctx &c, CT &t, int type, std::vector<int64_t> dims) {
  int64_t n = Count(dims, c.lim.max_elems);
  if (n < 0) {
    bool neg = false;
    for (int64_t d : dims) neg |= d < 0;
    if (neg) {
      c.why = "a negative dimension";
      return EV_ERROR;
    }
    c.capped = true;
    c.why = "its value would hold more than " + std::to_string(c.lim.max_elems) + " elements";
    return EV_SKIP;
  }
  if (c.total + n > c.lim.max_total) {
    c.capped = true;
    c.why = "the evaluator's budget of " + std::to_string(c.lim.max_total) + " elements is spent";
    return EV_SKIP;
  }
  c.total += n;
  t.type = type;
  t.dims = std::move(dims);
  t.i.clear();
  t.f.clear();
  if (t.isFloat()) t.f.assign(size_t(n), 0.0);
  else t.i.assign(size_t(n), 0);
  return EV_OK;
}

void Set(CT &t, int64_t k, double v) {
  if (t.isFloat()) t.f[size_t(k)] = t.type == TensorProto::FLOAT ? double(float(v)) : v;
  else t.i[size_t(k)] = Wrap(t.type, int64_t(v));
}

// A tensor's values as the file holds them; false when absent (stripped weights,
// external data) or of a type the evaluator does not hold.
bool Read(const TensorProto &p, const OnnxConstLimits &lim, CT &t) {
  if (!Supported(p.data_type()) || p.data_location() == TensorProto::EXTERNAL || p.has_segment()) return false;
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  int64_t n = Count(dims, lim.max_elems);
  if (n < 0) return false;
  t.type = p.data_type();
  t.dims = dims;
  t.i.clear();
  t.f.clear();
  static const int width[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8};
  int w = width[p.data_type()];
  if (p.has_raw_data()) {
    const std::string &raw = p.raw_data();
    if (int64_t(raw.size()) != n * w) return false;
    for (int64_t k = 0; k < n; k++) {
      const char *b = raw.data() + k * w;
      switch (p.data_type()) {
      case TensorProto::FLOAT: { float v; std::memcpy(&v, b, 4); t.f.push_back(v); break; }
      case TensorProto::DOUBLE: { double v; std::memcpy(&v, b, 8); t.f.push_back(v); break; }
      case TensorProto::INT64: case TensorProto::UINT64: { int64_t v; std::memcpy(&v, b, 8); t.i.push_back(v); break; }
      case TensorProto::INT32: { int32_t v; std::memcpy(&v, b, 4); t.i.push_back(v); break; }
      case TensorProto::UINT32: { uint32_t v; std::memcpy(&v, b, 4); t.i.push_back(v); break; }
      case TensorProto::INT16: { int16_t v; std::memcpy(&v, b, 2); t.i.push_back(v); break; }
      case TensorProto::UINT16: { uint16_t v; std::memcpy(&v, b, 2); t.i.push_back(v); break; }
      case TensorProto::INT8: t.i.push_back(int8_t(*b)); break;
      default: t.i.push_back(Wrap(p.data_type(), uint8_t(*b))); break; // UINT8, BOOL
      }
    }
    return true;
  }
  switch (p.data_type()) {
  case TensorProto::FLOAT:
    if (p.float_data_size() != n) return false;
    t.f.assign(p.float_data().begin(), p.float_data().end());
    return true;
  case TensorProto::DOUBLE:
    if (p.double_data_size() != n) return false;
    t.f.assign(p.double_data().begin(), p.double_data().end());
    return true;
  case TensorProto::INT64:
    if (p.int64_data_size() != n) return false;
    t.i.assign(p.int64_data().begin(), p.int64_data().end());
    return true;
  case TensorProto::UINT32: case TensorProto::UINT64:
    if (p.uint64_data_size() != n) return false;
    for (auto v : p.uint64_data()) t.i.push_back(Wrap(p.data_type(), int64_t(v)));
    return true;
  default:
    if (p.int32_data_size() != n) return false;
    for (auto v : p.int32_data()) t.i.push_back(Wrap(p.data_type(), v));
    return true;
  }
}

void Write(const CT &t, const std::string &name, TensorProto *p) {
  p->Clear();
  p->set_name(name);
  p->set_data_type(t.type);
  for (int64_t d : t.dims) p->add_dims(d);
  if (t.type == TensorProto::FLOAT) for (double v : t.f) p->add_float_data(float(v));
  else if (t.type == TensorProto::DOUBLE) for (double v : t.f) p->add_double_data(v);
  else if (t.type == TensorProto::INT64) for (int64_t v : t.i) p->add_int64_data(v);
  else if (t.type == TensorProto::UINT32 || t.type == TensorProto::UINT64) for (int64_t v : t.i) p->add_uint64_data(uint64_t(v));
  else for (int64_t v : t.i) p->add_int32_data(int32_t(v));
}

// ---- attributes ----
const onnx::AttributeProto *Attr(const onnx::NodeProto &n, const char *name) {
  for (const auto &a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t AttrInt(const onnx::NodeProto &n, const char *name, int64_t dflt) {
  const auto *a = Attr(n, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : dflt;
}
bool AttrInts(const onnx::NodeProto &n, const char *name, std::vector<int64_t> &out) {
  const auto *a = Attr(n, name);
  if (!a || a->type() != onnx::AttributeProto::INTS) return false;
  out.assign(a->ints().begin(), a->ints().end());
  return true;
}

// A 1-D (or scalar) integer tensor as a list.
bool Ints(const CT *t, std::vector<int64_t> &out) {
  if (!t || t->isFloat() || t->dims.size() > 1) return false;
  out = t->i;
  return true;
}

// axis in [-r, r) to [0, r); false when out of range
bool Axis(int64_t &a, int64_t r) {
  if (a < -r || a >= r) return false;
  if (a < 0) a += r;
  return true;
}

std::vector<int64_t> Strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

// Multidirectional (numpy) broadcast of shapes; false when incompatible.
bool Broadcast(const std::vector<std::vector<int64_t>> &shapes, std::vector<int64_t> &out) {
  size_t r = 0;
  for (const auto &s : shapes) r = std::max(r, s.size());
  out.assign(r, 1);
  for (const auto &s : shapes)
    for (size_t k = 0; k < s.size(); k++) {
      int64_t &o = out[r - s.size() + k];
      int64_t d = s[k];
      if (d == o || d == 1) continue;
      if (o != 1) return false;
      o = d;
    }
  return true;
}

// The flat index into t (broadcast to out's rank) of the element at out index k.
int64_t Source(const CT &t, const std::vector<int64_t> &out, const std::vector<int64_t> &ostr, int64_t k) {
  size_t off = out.size() - t.dims.size();
  int64_t idx = 0, stride = 1;
  for (size_t d = out.size(); d-- > off;) {
    int64_t coord = (k / ostr[d]) % out[d];
    int64_t td = t.dims[d - off];
    if (td != 1) idx += coord * stride;
    stride *= td;
  }
  return idx;
}

// ---- the ops ----
using In = std::vector<const CT *>;

Ev Elementwise(Ctx &c, const std::string &op, const In &in, CT &out) {
  for (const CT *t : in)
    if (!t) return EV_SKIP;
  std::vector<std::vector<int64_t>> shapes;
  for (const CT *t : in) shapes.push_back(t->dims);
  std::vector<int64_t> dims;
  if (!Broadcast(shapes, dims)) {
    c.why = "operands whose shapes do not broadcast";
    return EV_ERROR;
  }
  bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual";
  bool logic = op == "And" || op == "Or" || op == "Xor" || op == "Not";
  const CT &a = op == "Where" ? *in[1] : *in[0];
  int type = compare || logic ? int(TensorProto::BOOL) : a.type;
  for (size_t k = op == "Where" ? 1 : 0; k < in.size(); k++)
    if ((in[k]->type != a.type) && !(op == "Where" && k == 0)) return EV_SKIP; // mixed types: the graph says why
  if (logic && a.isFloat()) return EV_SKIP;
  bool unary = op == "Not" || op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" || op == "Sqrt" ||
               op == "Reciprocal" || op == "Relu" || op == "Sign" || op == "Min" || op == "Max";
  if (in.size() < (unary ? 1u : 2u)) return EV_SKIP; // a malformed node: shape inference says why
  Ev e = Make(c, out, type, dims);
  if (e != EV_OK) return e;
  std::vector<int64_t> str = Strides(dims);
  int64_t n = out.size();
  for (int64_t k = 0; k < n; k++) {
    if (a.isFloat() && !compare && !logic && op != "Where") {
      double x = in[0]->f[size_t(Source(*in[0], dims, str, k))];
      double y = in.size() > 1 ? in[1]->f[size_t(Source(*in[1], dims, str, k))] : 0;
      double v;
      if (op == "Add") v = x + y;
      else if (op == "Sub") v = x - y;
      else if (op == "Mul") v = x * y;
      else if (op == "Div") v = x / y;
      else if (op == "Mod") v = std::fmod(x, y);
      else if (op == "Pow") v = std::pow(x, y);
      else if (op == "Neg") v = -x;
      else if (op == "Abs") v = std::fabs(x);
      else if (op == "Floor") v = std::floor(x);
      else if (op == "Ceil") v = std::ceil(x);
      else if (op == "Sqrt") v = std::sqrt(x);
      else if (op == "Reciprocal") v = 1 / x;
      else if (op == "Relu") v = x > 0 ? x : 0;
      else if (op == "Sign") v = x > 0 ? 1 : x < 0 ? -1 : 0;
      else if (op == "Min" || op == "Max") {
        v = x;
        for (size_t j = 1; j < in.size(); j++) {
          double w = in[j]->f[size_t(Source(*in[j], dims, str, k))];
          v = op == "Min" ? std::min(v, w) : std::max(v, w);
        }
      } else return EV_SKIP;
      Set(out, k, v);
      continue;
    }
    if (op == "Where") {
      bool cond = in[0]->at(Source(*in[0], dims, str, k)) != 0;
      const CT *src = cond ? in[1] : in[2];
      int64_t s = Source(*src, dims, str, k);
      if (out.isFloat()) out.f[size_t(k)] = src->f[size_t(s)];
      else out.i[size_t(k)] = src->i[size_t(s)];
      continue;
    }
    if (compare) {
      double x = in[0]->at(Source(*in[0], dims, str, k)), y = in[1]->at(Source(*in[1], dims, str, k));
      if (!in[0]->isFloat()) { // exact on int64
        int64_t p = in[0]->i[size_t(Source(*in[0], dims, str, k))], q = in[1]->i[size_t(Source(*in[1], dims, str, k))];
        x = p < q ? -1 : p > q ? 1 : 0;
        y = 0;
      }
      bool v = op == "Equal" ? x == y : op == "Less" ? x < y : op == "Greater" ? x > y : op == "LessOrEqual" ? x <= y : x >= y;
      out.i[size_t(k)] = v;
      continue;
    }
    int64_t x = in[0]->i[size_t(Source(*in[0], dims, str, k))];
    int64_t y = in.size() > 1 ? in[1]->i[size_t(Source(*in[1], dims, str, k))] : 0;
    uint64_t ux = uint64_t(x), uy = uint64_t(y);
    int64_t v;
    if (op == "Not") v = !x;
    else if (op == "And") v = x && y;
    else if (op == "Or") v = x || y;
    else if (op == "Xor") v = (x != 0) != (y != 0);
    else if (op == "Add") v = int64_t(ux + uy); // wraps, as the hardware does
    else if (op == "Sub") v = int64_t(ux - uy);
    else if (op == "Mul") v = int64_t(ux * uy);
    else if (op == "Neg") v = int64_t(0 - ux);
    else if (op == "Abs") v = x < 0 ? int64_t(0 - ux) : x;
    else if (op == "Sign") v = x > 0 ? 1 : x < 0 ? -1 : 0;
    else if (op == "Relu") v = x > 0 ? x : 0;
    else if (op == "Floor" || op == "Ceil") v = x;
    else if (op == "Div" || op == "Mod") {
      if (y == 0) {
        c.why = "an integer division by zero";
        return EV_ERROR;
      }
      if (y == -1) v = op == "Div" ? int64_t(0 - ux) : 0; // INT64_MIN / -1 overflows in C
      else if (op == "Div") v = x / y;                      // truncates, as onnxruntime does
      else {
        v = x % y; // fmod=0 (the caller skips fmod=1 on integers): the result takes the divisor's sign
        if (v != 0 && ((v < 0) != (y < 0))) v += y;
      }
    } else if (op == "Min" || op == "Max") {
      v = x;
      for (size_t j = 1; j < in.size(); j++) {
        int64_t w = in[j]->i[size_t(Source(*in[j], dims, str, k))];
        v = op == "Min" ? std::min(v, w) : std::max(v, w);
      }
    } else return EV_SKIP;
    out.i[size_t(k)] = Wrap(type, v);
  }
  return EV_OK;
}

Ev Cast(Ctx &c, int to, const CT &a, CT &out) {
  if (!Supported(to)) return EV_SKIP;
  Ev e = Make(c, out, to, a.dims);
  if (e != EV_OK) return e;
  for (int64_t k = 0; k < a.size(); k++) {
    if (out.isFloat()) {
      Set(out, k, a.at(k));
    } else if (a.isFloat()) {
      double v = a.f[size_t(k)];
      if (to == TensorProto::BOOL) out.i[size_t(k)] = v != 0;
      else if (!(v > -9.2e18 && v < 9.2e18)) return EV_SKIP; // NaN, inf, out of range: undefined in C
      else out.i[size_t(k)] = Wrap(to, int64_t(v));
    } else {
      out.i[size_t(k)] = Wrap(to, a.i[size_t(k)]);
    }
  }
  return EV_OK;
}

// Copies t into out under new dims (same element count).
Ev Reshaped(Ctx &c, const CT &t, std::vector<int64_t> dims, CT &out) {
  Ev e = Make(c, out, t.type, std::move(dims));
  if (e != EV_OK) return e;
  if (out.size() != t.size()) {
    c.why = "a shape whose element count differs from the data's";
    return EV_ERROR;
  }
  out.i = t.i;
  out.f = t.f;
  return EV_OK;
}

Ev Gather(Ctx &c, const onnx::NodeProto &n, const CT &data, const CT &idx, CT &out) {
  if (idx.isFloat()) return EV_SKIP;
  int64_t r = int64_t(data.dims.size()), axis = AttrInt(n, "axis", 0);
  if (r == 0 || !Axis(axis, r)) {
    c.why = "an axis out of range";
    return EV_ERROR;
  }
  std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), idx.dims.begin(), idx.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  Ev e = Make(c, out, data.type, dims);
  if (e != EV_OK) return e;
  int64_t outer = 1, inner = 1, ad = data.dims[size_t(axis)];
  for (int64_t d = 0; d < axis; d++) outer *= data.dims[size_t(d)];
  for (int64_t d = axis + 1; d < r; d++) inner *= data.dims[size_t(d)];
  int64_t k = 0, ni = idx.size();
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < ni; j++) {
      int64_t x = idx.i[size_t(j)];
      if (x < -ad || x >= ad) {
        c.why = "an index out of range (" + std::to_string(x) + " into " + std::to_string(ad) + ")";
        return EV_ERROR;
      }
      if (x < 0) x += ad;
      for (int64_t q = 0; q < inner; q++, k++) {
        int64_t s = (o * ad + x) * inner + q;
        if (out.isFloat()) out.f[size_t(k)] = data.f[size_t(s)];
        else out.i[size_t(k)] = data.i[size_t(s)];
      }
    }
  return EV_OK;
}

Ev Slice(Ctx &c, const CT &data, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes,
         std::vector<int64_t> steps, CT &out) {
  int64_t r = int64_t(data.dims.size());
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); k++) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    c.why = "starts, ends, axes and steps of different lengths";
    return EV_ERROR;
  }
  std::vector<int64_t> st(size_t(r), 0), step(size_t(r), 1), dims = data.dims;
  std::vector<bool> seen(size_t(r), false);
  for (size_t k = 0; k < starts.size(); k++) {
    int64_t a = axes[k];
    if (!Axis(a, r) || seen[size_t(a)] || steps[k] == 0) {
      c.why = "an axis out of range, repeated, or a step of 0";
      return EV_ERROR;
    }
    seen[size_t(a)] = true;
    int64_t d = data.dims[size_t(a)], s = starts[k], e = ends[k], p = steps[k];
    if (s < 0) s = s < -d ? 0 : s + d; // clamp as ONNX says (negative counts from the end)
    if (e < 0) e = e < -d ? -1 : e + d;
    if (p == INT64_MIN) p = -d - 1; // the same slice, and -p does not overflow
    if (p > 0) {
      s = std::min(std::max(s, int64_t(0)), d);
      e = std::min(std::max(e, int64_t(0)), d);
      dims[size_t(a)] = e > s ? (e - s - 1) / p + 1 : 0;
    } else {
      s = std::min(std::max(s, int64_t(-1)), d - 1);
      e = std::min(std::max(e, int64_t(-1)), d - 1);
      dims[size_t(a)] = s > e ? (s - e - 1) / -p + 1 : 0;
    }
    st[size_t(a)] = s;
    step[size_t(a)] = p;
  }
  Ev ev = Make(c, out, data.type, dims);
  if (ev != EV_OK) return ev;
  std::vector<int64_t> ostr = Strides(dims), istr = Strides(data.dims);
  for (int64_t k = 0; k < out.size(); k++) {
    int64_t s = 0;
    for (int64_t d = 0; d < r; d++) s += (st[size_t(d)] + ((k / ostr[size_t(d)]) % dims[size_t(d)]) * step[size_t(d)]) * istr[size_t(d)];
    if (out.isFloat()) out.f[size_t(k)] = data.f[size_t(s)];
    else out.i[size_t(k)] = data.i[size_t(s)];
  }
  return EV_OK;
}

Ev Reduce(Ctx &c, const std::string &op, const onnx::NodeProto &n, const CT &data, const CT *axes_in, CT &out) {
  int64_t r = int64_t(data.dims.size());
  std::vector<int64_t> axes;
  bool have = AttrInts(n, "axes", axes) || (axes_in && Ints(axes_in, axes));
  if (axes_in && !Ints(axes_in, axes)) return EV_SKIP;
  if (!have || axes.empty()) {
    if (AttrInt(n, "noop_with_empty_axes", 0)) return Reshaped(c, data, data.dims, out);
    axes.clear();
    for (int64_t d = 0; d < r; d++) axes.push_back(d);
  }
  std::vector<bool> red(size_t(r), false);
  for (int64_t a : axes) {
    if (!Axis(a, r)) {
      c.why = "an axis out of range";
      return EV_ERROR;
    }
    red[size_t(a)] = true;
  }
  bool keep = AttrInt(n, "keepdims", 1) != 0;
  std::vector<int64_t> dims, full;
  for (int64_t d = 0; d < r; d++) {
    full.push_back(red[size_t(d)] ? 1 : data.dims[size_t(d)]);
    if (!red[size_t(d)] || keep) dims.push_back(full.back());
  }
  Ev e = Make(c, out, data.type, dims);
  if (e != EV_OK) return e;
  std::vector<double> acc(size_t(out.size()), op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<int64_t> iacc(size_t(out.size()), op == "ReduceProd" ? 1 : 0);
  std::vector<bool> first(size_t(out.size()), true);
  std::vector<int64_t> istr = Strides(data.dims), fstr = Strides(full);
  for (int64_t k = 0; k < data.size(); k++) {
    int64_t o = 0;
    for (int64_t d = 0; d < r; d++)
      if (!red[size_t(d)]) o += ((k / istr[size_t(d)]) % data.dims[size_t(d)]) * fstr[size_t(d)];
    double x = data.at(k);
    int64_t xi = data.isFloat() ? 0 : data.i[size_t(k)];
    size_t u = size_t(o);
    if (op == "ReduceSum" || op == "ReduceMean") acc[u] += x, iacc[u] = int64_t(uint64_t(iacc[u]) + uint64_t(xi));
    else if (op == "ReduceProd") acc[u] *= x, iacc[u] = int64_t(uint64_t(iacc[u]) * uint64_t(xi));
    else if (op == "ReduceMin") acc[u] = first[u] ? x : std::min(acc[u], x), iacc[u] = first[u] ? xi : std::min(iacc[u], xi);
    else acc[u] = first[u] ? x : std::max(acc[u], x), iacc[u] = first[u] ? xi : std::max(iacc[u], xi);
    first[u] = false;
  }
  int64_t per = out.size() ? data.size() / out.size() : 1;
  for (int64_t k = 0; k < out.size(); k++) {
    if (out.isFloat()) Set(out, k, op == "ReduceMean" ? acc[size_t(k)] / double(per ? per : 1) : acc[size_t(k)]);
    else out.i[size_t(k)] = Wrap(out.type, op == "ReduceMean" ? (per ? iacc[size_t(k)] / per : 0) : iacc[size_t(k)]);
  }
  return EV_OK;
}

Ev Transpose(Ctx &c, const onnx::NodeProto &n, const CT &data, CT &out) {
  int64_t r = int64_t(data.dims.size());
  std::vector<int64_t> perm;
  if (!AttrInts(n, "perm", perm))
    for (int64_t d = r; d-- > 0;) perm.push_back(d);
  std::vector<bool> seen(size_t(r), false);
  if (int64_t(perm.size()) != r) {
    c.why = "a perm of the wrong length";
    return EV_ERROR;
  }
  std::vector<int64_t> dims;
  for (int64_t &p : perm) {
    if (!Axis(p, r) || seen[size_t(p)]) {
      c.why = "a perm that is not a permutation";
      return EV_ERROR;
    }
    seen[size_t(p)] = true;
    dims.push_back(data.dims[size_t(p)]);
  }
  Ev e = Make(c, out, data.type, dims);
  if (e != EV_OK) return e;
  std::vector<int64_t> ostr = Strides(dims), istr = Strides(data.dims);
  for (int64_t k = 0; k < out.size(); k++) {
    int64_t s = 0;
    for (int64_t d = 0; d < r; d++) s += ((k / ostr[size_t(d)]) % dims[size_t(d)]) * istr[size_t(perm[size_t(d)])];
    if (out.isFloat()) out.f[size_t(k)] = data.f[size_t(s)];
    else out.i[size_t(k)] = data.i[size_t(s)];
  }
  return EV_OK;
}

Ev ScatterND(Ctx &c, const CT &data, const CT &idx, const CT &upd, CT &out) {
  if (idx.isFloat() || idx.dims.empty() || upd.type != data.type) return EV_SKIP;
  int64_t q = int64_t(idx.dims.size()), kk = idx.dims.back(), r = int64_t(data.dims.size());
  if (kk > r) {
    c.why = "indices longer than the data's rank";
    return EV_ERROR;
  }
  int64_t slice = 1;
  for (int64_t d = kk; d < r; d++) slice *= data.dims[size_t(d)];
  int64_t nidx = kk ? idx.size() / kk : 0;
  if (upd.size() != nidx * slice || q < 1) {
    c.why = "updates of the wrong size";
    return EV_ERROR;
  }
  Ev e = Reshaped(c, data, data.dims, out);
  if (e != EV_OK) return e;
  std::vector<int64_t> str = Strides(data.dims);
  for (int64_t j = 0; j < nidx; j++) {
    int64_t off = 0;
    for (int64_t d = 0; d < kk; d++) {
      int64_t x = idx.i[size_t(j * kk + d)], dd = data.dims[size_t(d)];
      if (x < -dd || x >= dd) {
        c.why = "an index out of range";
        return EV_ERROR;
      }
      off += (x < 0 ? x + dd : x) * str[size_t(d)];
    }
    for (int64_t s = 0; s < slice; s++) {
      if (out.isFloat()) out.f[size_t(off + s)] = upd.f[size_t(j * slice + s)];
      else out.i[size_t(off + s)] = upd.i[size_t(j * slice + s)];
    }
  }
  return EV_OK;
}

// Evaluates node n (default domain) whose inputs are `in` (nullptr: not known);
// shape_of gives the inferred shape of input 0 for Shape and Size.
Ev Eval(Ctx &c, const onnx::NodeProto &n, int opset, const In &in, const std::vector<int64_t> *shape0,
        std::vector<CT> &out) {
  if (!shape0 && !in.empty() && in[0]) shape0 = &in[0]->dims;
  const std::string &op = n.op_type();
  auto need = [&](size_t k) { return k < in.size() && in[k]; };
  out.assign(size_t(std::max(n.output_size(), 1)), CT());
  CT &o = out[0];
  if (op == "Shape" || op == "Size") {
    if (!shape0) return EV_SKIP;
    if (op == "Size") {
      Ev e = Make(c, o, TensorProto::INT64, {});
      if (e == EV_OK) o.i[0] = Count(*shape0, INT64_MAX);
      return o.i.empty() || o.i[0] >= 0 ? e : EV_SKIP;
    }
    int64_t r = int64_t(shape0->size()), s = AttrInt(n, "start", 0), e = AttrInt(n, "end", r);
    if (s < 0) s += r;
    if (e < 0) e += r;
    s = std::min(std::max(s, int64_t(0)), r);
    e = std::min(std::max(e, int64_t(0)), r);
    Ev ev = Make(c, o, TensorProto::INT64, {std::max(e - s, int64_t(0))});
    for (int64_t k = s; ev == EV_OK && k < e; k++) o.i[size_t(k - s)] = (*shape0)[size_t(k)];
    return ev;
  }
  if (op == "ConstantOfShape") {
    std::vector<int64_t> dims;
    if (!need(0) || !Ints(in[0], dims)) return EV_SKIP;
    CT v;
    v.type = TensorProto::FLOAT;
    v.f = {0.0};
    const auto *a = Attr(n, "value");
    if (a && a->has_t() && !Read(a->t(), c.lim, v)) return EV_SKIP;
    if (v.size() != 1) {
      c.why = "a value that is not one element";
      return EV_ERROR;
    }
    Ev e = Make(c, o, v.type, dims);
    for (int64_t k = 0; e == EV_OK && k < o.size(); k++) Set(o, k, v.at(0));
    return e;
  }
  if (op == "Range") {
    if (!need(0) || !need(1) || !need(2) || in[0]->size() != 1 || in[1]->size() != 1 || in[2]->size() != 1 ||
        in[1]->type != in[0]->type || in[2]->type != in[0]->type)
      return EV_SKIP;
    double s = in[0]->at(0), l = in[1]->at(0), d = in[2]->at(0);
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
      c.why = "a delta of 0 or a bound that is not finite";
      return EV_ERROR;
    }
    double count = std::ceil((l - s) / d);
    if (!in[0]->isFloat()) { // exactly, on int64
      int64_t diff, di = in[2]->i[0];
      if (__builtin_sub_overflow(in[1]->i[0], in[0]->i[0], &diff) || di == INT64_MIN || (di == -1 && diff == INT64_MIN)) count = double(c.lim.max_elems) + 1;
      else count = double(diff / di + ((diff % di != 0 && (diff < 0) == (di < 0)) ? 1 : 0));
    }
    if (!(count < double(c.lim.max_elems) + 1)) count = double(c.lim.max_elems) + 1; // Make says it is too many
    if (!(count > 0)) count = 0;
    Ev e = Make(c, o, in[0]->type, {std::max(int64_t(count), int64_t(0))});
    for (int64_t k = 0; e == EV_OK && k < o.size(); k++) {
      if (o.isFloat()) Set(o, k, s + double(k) * d);
      else o.i[size_t(k)] = Wrap(o.type, int64_t(uint64_t(in[0]->i[0]) + uint64_t(k) * uint64_t(in[2]->i[0])));
    }
    return e;
  }
  // the rest need every input they read
  for (int k = 0; k < n.input_size(); k++)
    if (!n.input(k).empty() && !in[size_t(k)]) return EV_SKIP;
  if (in.empty() || !in[0]) return EV_SKIP;
  const CT &a = *in[0];
  if (op == "Identity") return Reshaped(c, a, a.dims, o);
  if (op == "Cast") return Cast(c, int(AttrInt(n, "to", 0)), a, o);
  if (op == "CastLike") return need(1) ? Cast(c, in[1]->type, a, o) : EV_SKIP;
  if (op == "Reshape") {
    std::vector<int64_t> shape;
    if (!need(1) || !Ints(in[1], shape)) return EV_SKIP;
    bool allowzero = AttrInt(n, "allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < shape.size(); k++) {
      if (shape[k] == 0 && !allowzero) {
        if (k >= a.dims.size()) {
          c.why = "a 0 past the data's rank";
          return EV_ERROR;
        }
        shape[k] = a.dims[k];
      }
      if (shape[k] == -1 && infer < 0) infer = int64_t(k);
      else if (shape[k] < 0) {
        c.why = "a shape with a negative size";
        return EV_ERROR;
      } else if (__builtin_mul_overflow(known, shape[k], &known) || known > c.lim.max_elems) {
        known = c.lim.max_elems + 1; // too many: Reshaped says so (or the counts differ)
      }
    }
    if (infer >= 0) {
      if (known == 0 || a.size() % known) {
        c.why = "a shape whose element count differs from the data's";
        return EV_ERROR;
      }
      shape[size_t(infer)] = a.size() / known;
    } else if (known != a.size()) { // before Make, which would call a huge shape too big, not wrong
      c.why = "a shape whose element count differs from the data's";
      return EV_ERROR;
    }
    return Reshaped(c, a, shape, o);
  }
  if (op == "Flatten") {
    int64_t r = int64_t(a.dims.size()), axis = AttrInt(n, "axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) {
      c.why = "an axis out of range";
      return EV_ERROR;
    }
    int64_t lead = 1;
    for (int64_t d = 0; d < axis; d++) lead *= a.dims[size_t(d)];
    return Reshaped(c, a, {lead, lead ? a.size() / lead : 0}, o);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::vector<int64_t> axes;
    bool have = opset < 13 ? AttrInts(n, "axes", axes) : need(1) && Ints(in[1], axes);
    if (opset >= 13 && need(1) && !have) return EV_SKIP;
    int64_t r = int64_t(a.dims.size());
    if (op == "Unsqueeze") {
      int64_t orank = r + int64_t(axes.size());
      std::vector<bool> ins(size_t(orank), false);
      for (int64_t x : axes) {
        if (!Axis(x, orank) || ins[size_t(x)]) {
          c.why = "an axis out of range or repeated";
          return EV_ERROR;
        }
        ins[size_t(x)] = true;
      }
      std::vector<int64_t> dims;
      for (int64_t d = 0, j = 0; d < orank; d++) dims.push_back(ins[size_t(d)] ? 1 : a.dims[size_t(j++)]);
      return Reshaped(c, a, dims, o);
    }
    std::vector<bool> drop(size_t(r), false);
    if (!have)
      for (int64_t d = 0; d < r; d++) drop[size_t(d)] = a.dims[size_t(d)] == 1;
    for (int64_t x : axes) {
      if (!Axis(x, r) || a.dims[size_t(x)] != 1) {
        c.why = "an axis out of range or of a size other than 1";
        return EV_ERROR;
      }
      drop[size_t(x)] = true;
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < r; d++)
      if (!drop[size_t(d)]) dims.push_back(a.dims[size_t(d)]);
    return Reshaped(c, a, dims, o);
  }
  if (op == "Gather") return need(1) ? Gather(c, n, a, *in[1], o) : EV_SKIP;
  if (op == "Concat") {
    int64_t r = int64_t(a.dims.size()), axis = AttrInt(n, "axis", 0);
    if (r == 0 || !Axis(axis, r)) {
      c.why = "an axis out of range";
      return EV_ERROR;
    }
    std::vector<int64_t> dims = a.dims;
    dims[size_t(axis)] = 0;
    for (const CT *t : in) {
      if (!t) continue;
      if (t->type != a.type || t->dims.size() != a.dims.size()) return EV_SKIP;
      for (int64_t d = 0; d < r; d++)
        if (d != axis && t->dims[size_t(d)] != a.dims[size_t(d)]) {
          c.why = "inputs whose shapes differ off the axis";
          return EV_ERROR;
        }
      dims[size_t(axis)] += t->dims[size_t(axis)];
    }
    Ev e = Make(c, o, a.type, dims);
    if (e != EV_OK) return e;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; d++) outer *= dims[size_t(d)];
    int64_t k = 0;
    for (int64_t p = 0; p < outer; p++)
      for (const CT *t : in) {
        if (!t) continue;
        int64_t chunk = outer ? t->size() / outer : 0;
        for (int64_t q = 0; q < chunk; q++, k++) {
          if (o.isFloat()) o.f[size_t(k)] = t->f[size_t(p * chunk + q)];
          else o.i[size_t(k)] = t->i[size_t(p * chunk + q)];
        }
      }
    return EV_OK;
  }
  if (op == "Slice") {
    std::vector<int64_t> s, e, ax, st;
    if (opset < 10) {
      if (!AttrInts(n, "starts", s) || !AttrInts(n, "ends", e)) return EV_SKIP;
      AttrInts(n, "axes", ax);
    } else if (!need(1) || !need(2) || !Ints(in[1], s) || !Ints(in[2], e) || (need(3) && !Ints(in[3], ax)) ||
               (need(4) && !Ints(in[4], st))) {
      return EV_SKIP;
    }
    return Slice(c, a, s, e, ax, st, o);
  }
  if (op == "Expand") {
    std::vector<int64_t> shape, dims;
    if (!need(1) || !Ints(in[1], shape)) return EV_SKIP;
    if (!Broadcast({a.dims, shape}, dims)) {
      c.why = "a shape the data does not broadcast to";
      return EV_ERROR;
    }
    Ev e = Make(c, o, a.type, dims);
    if (e != EV_OK) return e;
    std::vector<int64_t> str = Strides(dims);
    for (int64_t k = 0; k < o.size(); k++) {
      int64_t s = Source(a, dims, str, k);
      if (o.isFloat()) o.f[size_t(k)] = a.f[size_t(s)];
      else o.i[size_t(k)] = a.i[size_t(s)];
    }
    return EV_OK;
  }
  if (op == "Tile") {
    std::vector<int64_t> rep, dims;
    if (!need(1) || !Ints(in[1], rep) || rep.size() != a.dims.size()) return EV_SKIP;
    for (size_t d = 0; d < rep.size(); d++) {
      if (rep[d] < 0 || (a.dims[d] && rep[d] > c.lim.max_elems)) return EV_SKIP;
      dims.push_back(a.dims[d] * rep[d]);
    }
    Ev e = Make(c, o, a.type, dims);
    if (e != EV_OK) return e;
    std::vector<int64_t> ostr = Strides(dims), istr = Strides(a.dims);
    for (int64_t k = 0; k < o.size(); k++) {
      int64_t s = 0;
      for (size_t d = 0; d < dims.size(); d++) s += ((k / ostr[d]) % dims[d] % a.dims[d]) * istr[d];
      if (o.isFloat()) o.f[size_t(k)] = a.f[size_t(s)];
      else o.i[size_t(k)] = a.i[size_t(s)];
    }
    return EV_OK;
  }
  if (op == "Transpose") return Transpose(c, n, a, o);
  if (op == "ScatterND") {
    if (!need(1) || !need(2) || Attr(n, "reduction")) return EV_SKIP;
    return ScatterND(c, a, *in[1], *in[2], o);
  }
  if (op.rfind("Reduce", 0) == 0 && (op == "ReduceSum" || op == "ReduceProd" || op == "ReduceMin" ||
                                      op == "ReduceMax" || op == "ReduceMean"))
    return Reduce(c, op, n, a, need(1) ? in[1] : nullptr, o);
  static const std::unordered_set<std::string> elementwise = {
      "Add", "Sub", "Mul", "Div", "Mod", "Pow", "Neg", "Abs", "Floor", "Ceil", "Sqrt", "Reciprocal", "Relu",
      "Sign", "Min", "Max", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or",
      "Xor", "Where"};
  if (elementwise.count(op)) {
    if (op == "Pow" && !a.isFloat()) return EV_SKIP;
    if ((op == "Mod") && AttrInt(n, "fmod", 0) && !a.isFloat()) return EV_SKIP; // C's % semantics below are Python's
    In args;
    for (const CT *t : in)
      if (t) args.push_back(t);
    if (op == "Where" && args.size() != 3) return EV_SKIP;
    return Elementwise(c, op, args, o);
  }
  return EV_SKIP;
}

// Shapes the last inference found, by name (fully known ones only).
void Shapes(const onnx::GraphProto &g, std::unordered_map<std::string, std::vector<int64_t>> &out) {
  auto add = [&](const onnx::ValueInfoProto &vi) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto &d : vi.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) return;
      dims.push_back(d.dim_value());
    }
    out.emplace(vi.name(), dims);
  };
  for (const auto &vi : g.input()) add(vi);
  for (const auto &vi : g.value_info()) add(vi);
  for (const auto &vi : g.output()) add(vi);
  for (const auto &t : g.initializer()) out[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
}

} // namespace

int OnnxConst_fold(onnx::ModelProto &m, const OnnxConstLimits &limits, OnnxConstReport &report,
                   const OnnxConstGiven *given) {
  onnx::GraphProto *g = m.mutable_graph();
  int opset = 1;
  for (const auto &o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = int(o.version());
  std::unordered_map<std::string, std::vector<int64_t>> shapes;
  Shapes(*g, shapes);
  std::unordered_map<std::string, const TensorProto *> inits;
  for (const auto &t : g->initializer()) inits.emplace(t.name(), &t);
  if (given)
    for (const auto &kv : *given) inits.emplace(kv.first, &kv.second);
  std::unordered_set<std::string> outputs;
  for (const auto &o : g->output()) outputs.insert(o.name());
  std::unordered_map<std::string, CT> known; // values read or evaluated this pass
  std::unordered_set<std::string> unknown;   // initializers without usable data
  Ctx c(limits);
  // The value of `name` when it is known (read lazily: big weights are never parsed).
  auto get = [&](const std::string &name) -> const CT * {
    if (name.empty()) return nullptr;
    auto it = known.find(name);
    if (it != known.end()) return &it->second;
    if (unknown.count(name)) return nullptr;
    auto ii = inits.find(name);
    CT t;
    if (ii == inits.end() || !Read(*ii->second, limits, t)) {
      unknown.insert(name);
      return nullptr;
    }
    c.total += t.size();
    return &(known[name] = std::move(t));
  };
  std::vector<bool> remove(size_t(g->node_size()), false);
  int removed = 0;
  for (int k = 0; k < g->node_size(); k++) {
    const onnx::NodeProto &n = g->node(k);
    if (!(n.domain().empty() || n.domain() == "ai.onnx")) continue;
    std::vector<CT> out;
    if (n.op_type() == "Constant") {
      const auto *a = n.attribute_size() == 1 ? &n.attribute(0) : nullptr;
      CT t;
      bool ok = false;
      if (a && a->name() == "value" && a->has_t()) ok = Read(a->t(), limits, t);
      else if (a && a->name() == "value_int") ok = true, t.type = TensorProto::INT64, t.i = {a->i()};
      else if (a && a->name() == "value_float") ok = true, t.type = TensorProto::FLOAT, t.f = {double(a->f())};
      else if (a && a->name() == "value_ints" && a->ints_size() <= limits.max_elems)
        ok = true, t.type = TensorProto::INT64, t.i.assign(a->ints().begin(), a->ints().end()), t.dims = {a->ints_size()};
      else if (a && a->name() == "value_floats" && a->floats_size() <= limits.max_elems)
        ok = true, t.type = TensorProto::FLOAT, t.f.assign(a->floats().begin(), a->floats().end()), t.dims = {a->floats_size()};
      if (ok && n.output_size() == 1) known[n.output(0)] = std::move(t);
      continue;
    }
    if (n.output_size() < 1 || n.output_size() > 1) continue; // every op evaluated here has one output
    if (known.count(n.output(0))) continue;                   // defined twice: the importer says so
    In in;
    for (const auto &name : n.input()) in.push_back(get(name));
    const std::vector<int64_t> *shape0 = nullptr;
    if (n.input_size() > 0) {
      auto it = shapes.find(n.input(0));
      if (it != shapes.end()) shape0 = &it->second;
    }
    c.why.clear();
    c.capped = false;
    Ev e = Eval(c, n, opset, in, shape0, out);
    if (e == EV_ERROR) {
      report.error = "node \"" + n.name().substr(0, 120) + "\" (" + n.op_type() + "): its constant inputs give " + c.why;
      return -1;
    }
    if (e == EV_SKIP) {
      if (c.capped && report.capped.empty())
        report.capped = "the import-time evaluator left \"" + n.output(0).substr(0, 120) + "\" (" + n.op_type() +
                        ") to the graph: " + c.why;
      continue;
    }
    known[n.output(0)] = std::move(out[0]);
    if (!outputs.count(n.output(0))) remove[size_t(k)] = true, removed++;
  }
  if (!removed) return 0;
  // the removed nodes' outputs become initializers; the nodes leave the graph
  std::unordered_set<std::string> have;
  for (const auto &t : g->initializer()) have.insert(t.name());
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int k = 0; k < g->node_size(); k++) {
    if (!remove[size_t(k)]) {
      *kept.Add() = g->node(k);
      continue;
    }
    const std::string &name = g->node(k).output(0);
    if (have.insert(name).second) Write(known[name], name, g->add_initializer());
  }
  g->mutable_node()->Swap(&kept);
  report.removed += removed;
  return removed;
}
