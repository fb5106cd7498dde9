#include "model/plan_case.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "model/check_rule.h"
#include "model/expr.h"
#include "platform/backend.h"  // kMaxArgumentAlign

namespace hk {

namespace {

void eval_dims(const std::vector<std::string>& exprs, const Params& p, const std::string& path, std::array<int64_t, 3>& out) {
  out = {1, 1, 1};
  for (size_t i = 0; i < exprs.size(); ++i) out[i] = eval_int_at(exprs[i], p, fmt::format("{}/{}", path, i), 1);
}

}  // namespace

// A scalar argument is passed in the exact C type the kernel declares: a value that type cannot
// hold (an i32 of 2^40, a u32 of -5, an i32 of 1.7) would reach the kernel as another number.
static void check_scalar_fits(const ArgPlan& a, const std::string& dtype, const std::string& path) {
  const double v = a.value;
  if (is_float(a.dtype)) {
    if (std::isnan(v)) throw PlanError(path, "is NaN");
    return;
  }
  double lo = 0, hi = 0;
  switch (a.dtype) {
    case DType::i8: lo = -128, hi = 127; break;
    case DType::u8: lo = 0, hi = a.boolean ? 1 : 255; break;
    case DType::i16: lo = -32768, hi = 32767; break;
    case DType::u16: lo = 0, hi = 65535; break;
    case DType::i32: lo = -2147483648.0, hi = 2147483647.0; break;
    case DType::u32: lo = 0, hi = 4294967295.0; break;
    case DType::i64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
    case DType::u64: lo = 0, hi = 18446744073709551615.0; break;
    default: return;
  }
  if (!(v == std::floor(v) && v >= lo && v <= hi))
    throw PlanError(path, fmt::format("{} does not fit a {} argument (whole numbers from {:.0f} to {:.0f})", v, dtype, lo, hi));
}


namespace {

// A tolerance wider than the dtype's default in any field (or allowing a fraction of elements
// to mismatch) should say why; one that does not goes to *style.
void require_why(const ToleranceSpec& s, DType dtype, const std::string& path, const std::string& what, std::vector<PlanError>* style) {
  if (!style) return;
  const Tolerance d = default_tolerance(dtype);
  std::string wider;
  if (s.atol && *s.atol > d.atol) wider = fmt::format("atol {:g} > {:g}", *s.atol, d.atol);
  else if (s.rtol && *s.rtol > d.rtol) wider = fmt::format("rtol {:g} > {:g}", *s.rtol, d.rtol);
  else if (s.ulps && *s.ulps > d.ulps) wider = fmt::format("ulps {:g} > {:g}", *s.ulps, d.ulps);
  else if (s.max_mismatch_fraction && *s.max_mismatch_fraction > 0) wider = fmt::format("max_mismatch_fraction {:g}", *s.max_mismatch_fraction);
  if (wider.empty() || !s.why.empty()) return;
  style->emplace_back(path, fmt::format("{}{} is looser than the {} default and has no \"why\": say what error the kernel's arithmetic needs "
                                    "(e.g. \"bf16 output: 0.5 ulp rounding + f32 accumulation over K\")",
                                    what, wider, dtype_name(dtype)));
}

constexpr int64_t kMaxArrayCount = 65536;  // elements of one array argument

// An argument or a struct's field, its expressions evaluated; an array becomes a record of copies.
ArgPlan plan_arg(const ArgSpec& a, const CasePlan& plan, const Params& p, const std::string& path) {
  ArgPlan ap;
  ap.kind = a.kind;
  ap.name = a.name;
  switch (a.kind) {
    case ArgKind::tensor:
      for (size_t t = 0; t < plan.tensors.size(); ++t)
        if (plan.tensors[t].name == a.tensor) ap.tensor = static_cast<int>(t);
      break;
    case ArgKind::scalar:
      ap.boolean = a.scalar_dtype == "bool";
      ap.dtype = ap.boolean ? DType::u8 : *parse_dtype(a.scalar_dtype);
      ap.value = eval_at(a.value, p, path + "/value");
      check_scalar_fits(ap, a.scalar_dtype, path + "/value");
      break;
    case ArgKind::zeros: ap.bytes = eval_int_at(a.bytes, p, path + "/bytes", 1); break;
    case ArgKind::record:
      for (size_t f = 0; f < a.fields.size(); ++f) ap.fields.push_back(plan_arg(a.fields[f], plan, p, fmt::format("{}/struct/{}", path, f)));
      if (!a.align.empty()) {
        ap.align = eval_int_at(a.align, p, path + "/align", 1);
        if (ap.align > static_cast<int64_t>(kMaxArgumentAlign) || (ap.align & (ap.align - 1)))
          throw PlanError(path + "/align", fmt::format("{} is not a power of two up to {}", ap.align, kMaxArgumentAlign));
      }
      break;
    case ArgKind::array: {
      ap.kind = ArgKind::record;
      const int64_t n = eval_int_at(a.count, p, path + "/count", 1);
      if (n > kMaxArrayCount) throw PlanError(path + "/count", fmt::format("{} elements; at most {}", n, kMaxArrayCount));
      const ArgPlan element = plan_arg(a.fields.at(0), plan, p, path + "/array");
      for (int64_t e = 0; e < n; ++e) {
        ap.fields.push_back(element);
        ap.fields.back().name = fmt::format("{}[{}]", a.name, e);
      }
      break;
    }
  }
  return ap;
}

// The case's offset for the tensor, else the tensor's own: whole elements, below kMaxOffsetBytes.
int64_t plan_offset(const KernelSpec& k, const CaseSpec& c, const TensorSpec& ts, DType dtype, const std::string& tensor_path) {
  const auto own = c.offset_bytes.find(ts.name);
  const std::string path = own == c.offset_bytes.end() ? tensor_path + "/offset_bytes" : k.json_path + "/cases";
  const std::string what = own == c.offset_bytes.end() ? "" : fmt::format("case '{}', the offset_bytes of '{}': ", c.name, ts.name);
  const std::string& text = own == c.offset_bytes.end() ? ts.offset_bytes : own->second;
  const int64_t offset = eval_int_at(text, c.params, path, 0);
  const int64_t unit = static_cast<int64_t>(dtype_size(dtype));
  if (offset >= kMaxOffsetBytes)
    throw PlanError(path, fmt::format("{}{} bytes: expected less than {} (the allocation's alignment)", what, offset, kMaxOffsetBytes));
  if (offset % unit != 0)
    throw PlanError(path, fmt::format("{}{} bytes is not a whole number of {} elements ({} bytes each): a kernel never sees a "
                                      "pointer inside an element", what, offset, dtype_name(dtype), unit));
  return offset;
}

}  // namespace

namespace {

void plan_shape(const TensorSpec& ts, const Params& p, const std::string& path, TensorPlan& t) {
  t.numel = 1;
  for (size_t d = 0; d < ts.shape.size(); ++d) {
    t.shape.push_back(eval_int_at(ts.shape[d], p, fmt::format("{}/shape/{}", path, d), 0));
    if (t.shape.back() > 0 && t.numel > kMaxElements / t.shape.back())
      throw PlanError(fmt::format("{}/shape/{}", path, d), fmt::format("the shape has more than {} elements", kMaxElements));
    t.numel *= t.shape.back();
  }
}

void plan_init(const GeneratorSpec& init, const Params& p, const std::string& path, TensorPlan& t) {
  t.init.kind = init.kind;
  t.init.reference = init.reference;
  t.init.output = init.output;
  for (const auto& [field, text] : init.fields) {
    t.init.fields[field] = eval_at(text, p, path + "/init/" + field);
    // A fill may be -inf, +inf or nan on purpose (a float tensor's constant or values); a
    // distribution's bounds may not.
    const bool fill = (t.init.kind == "constant" || t.init.kind == "values") && is_float(t.dtype);
    if (!std::isfinite(t.init.fields[field]) && !fill)
      throw PlanError(path + "/init/" + field, fmt::format("evaluates to {}: the inputs would not be numbers", t.init.fields[field]));
  }
  if (t.init.kind == "values" && t.init.fields.size() != static_cast<size_t>(t.numel))
    throw PlanError(path + "/init/values", fmt::format("lists {} value(s) for a tensor of {} element(s)", t.init.fields.size(), t.numel));
  if (t.init.kind == "int" && std::ceil(t.init.fields["low"]) > std::floor(t.init.fields["high"]))
    throw PlanError(path + "/init", fmt::format("int generator: no integer between low {} and high {}", t.init.fields["low"], t.init.fields["high"]));
}

// An output's tolerance: the dtype's default, then the tensor's, then the case's, field by field.
Tolerance plan_tolerance(const KernelSpec& k, const CaseSpec& c, const TensorSpec& ts, DType dtype, const std::string& path,
                         std::vector<PlanError>* style) {
  Tolerance tol = default_tolerance(dtype);
  ToleranceSpec spec = ts.tolerance;
  const auto own = c.tolerance.find(ts.name);
  if (own != c.tolerance.end()) {
    if (own->second.atol) spec.atol = own->second.atol;
    if (own->second.rtol) spec.rtol = own->second.rtol;
    if (own->second.ulps) spec.ulps = own->second.ulps;
    if (own->second.max_mismatch_fraction) spec.max_mismatch_fraction = own->second.max_mismatch_fraction;
    if (own->second.hard_ulps) spec.hard_ulps = own->second.hard_ulps;
  }
  require_why(ts.tolerance, dtype, path + "/tolerance", "", style);
  if (own != c.tolerance.end())
    require_why(own->second, dtype, k.json_path + "/cases", fmt::format("case '{}', the tolerance of '{}': ", c.name, ts.name), style);
  if (spec.atol) tol.atol = *spec.atol;
  if (spec.rtol) tol.rtol = *spec.rtol;
  if (spec.ulps) tol.ulps = *spec.ulps;
  if (spec.max_mismatch_fraction) tol.max_mismatch_fraction = *spec.max_mismatch_fraction;
  if (spec.hard_ulps) tol.hard_ulps = *spec.hard_ulps;
  return tol;
}

TensorPlan plan_tensor(const KernelSpec& k, const CaseSpec& c, size_t i, std::vector<PlanError>* style) {
  const TensorSpec& ts = k.tensors[i];
  const std::string path = fmt::format("{}/tensors/{}", k.json_path, i);
  TensorPlan t;
  t.name = ts.name;
  t.role = ts.role;
  const std::string dt = substitute_params(ts.dtype, c.params, path + "/dtype");
  const auto parsed = parse_dtype(dt);
  if (!parsed) throw PlanError(path + "/dtype", "unknown dtype '" + dt + "' (expected one of: " + dtype_list() + ")");
  t.dtype = *parsed;
  plan_shape(ts, c.params, path, t);
  t.deterministic = ts.deterministic;
  t.offset_bytes = plan_offset(k, c, ts, t.dtype, path);
  if (ts.init) plan_init(*ts.init, c.params, path, t);
  if (ts.role != Role::in) t.tolerance = plan_tolerance(k, c, ts, t.dtype, path, style);
  return t;
}

// A case's tolerances name outputs and its offsets tensors of the kernel.
void check_case_names(const KernelSpec& k, const CaseSpec& c, const CasePlan& plan) {
  for (const auto& [name, tol] : c.tolerance) {
    bool found = false;
    for (const TensorPlan& t : plan.tensors) found |= (t.name == name && t.role != Role::in);
    if (!found) throw PlanError(k.json_path + "/cases", "case '" + c.name + "' sets a tolerance for '" + name + "', which is not an output");
  }
  for (const auto& offset : c.offset_bytes)
    if (std::none_of(plan.tensors.begin(), plan.tensors.end(), [&](const TensorPlan& t) { return t.name == offset.first; }))
      throw PlanError(k.json_path + "/cases", "case '" + c.name + "' sets offset_bytes for '" + offset.first + "', which is not a tensor");
}

}  // namespace

CasePlan plan_case(const KernelSpec& k, const CaseSpec& c, std::vector<PlanError>* style) {
  CasePlan plan;
  plan.kernel = k.name;
  plan.case_name = c.name;
  plan.params = c.params;
  const Params& p = c.params;
  for (size_t i = 0; i < k.tensors.size(); ++i) plan.tensors.push_back(plan_tensor(k, c, i, style));
  // Rules may name any tensor of the kernel, so they are planned once every tensor is.
  for (size_t i = 0; i < k.tensors.size(); ++i)
    for (const CheckSpec& spec : k.tensors[i].checks)
      plan.tensors[i].checks.push_back(plan_check(spec, plan, i, p, fmt::format("{}/tensors/{}/{}", k.json_path, i, spec.field)));
  check_case_names(k, c, plan);
  for (size_t i = 0; i < k.args.size(); ++i) plan.args.push_back(plan_arg(k.args[i], plan, p, fmt::format("{}/args/{}", k.json_path, i)));
  eval_dims(k.launch.grid, p, k.json_path + "/launch/grid", plan.grid);
  eval_dims(k.launch.block, p, k.json_path + "/launch/block", plan.block);
  plan.shared_bytes = eval_int_at(k.launch.shared, p, k.json_path + "/launch/shared", 0);
  for (const auto& [name, value] : k.defines)
    plan.defines.emplace_back(name, substitute_params(value, p, k.json_path + "/defines/" + name));
  return plan;
}

}  // namespace hk
