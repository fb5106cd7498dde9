#include "model/kernel_params.h"

#include <algorithm>
#include <fmt/format.h>

#include "model/arg_layout.h"
#include "model/dtype.h"

namespace hk {
namespace {

// What a manifest argument passes: a tensor's device address, or a scalar of its dtype.
KernelParam passed(const ArgPlan& a) {
  if (a.kind == ArgKind::tensor) return {ParamKind::pointer, sizeof(void*), ""};
  if (a.kind != ArgKind::scalar || a.boolean) return {ParamKind::other, layout_of(a).bytes, ""};
  switch (a.dtype) {
    case DType::f32: return {ParamKind::floating, 4, ""};
    case DType::f64: return {ParamKind::floating, 8, ""};
    case DType::i32: return {ParamKind::signed_int, 4, ""};
    case DType::i64: return {ParamKind::signed_int, 8, ""};
    case DType::u32: return {ParamKind::unsigned_int, 4, ""};
    case DType::u64: return {ParamKind::unsigned_int, 8, ""};
    case DType::i8: case DType::i16: return {ParamKind::signed_int, dtype_size(a.dtype), ""};
    case DType::u8: case DType::u16: return {ParamKind::unsigned_int, dtype_size(a.dtype), ""};
    case DType::f16: case DType::bf16: return {ParamKind::floating, 2, ""};
    default: return {ParamKind::unknown, dtype_size(a.dtype), ""};
  }
}

const char* kind_words(ParamKind k) {
  switch (k) {
    case ParamKind::pointer: return "a pointer";
    case ParamKind::floating: return "floating point";
    case ParamKind::signed_int: return "a signed integer";
    case ParamKind::unsigned_int: return "an unsigned integer";
    case ParamKind::other: return "not a number or pointer";
    case ParamKind::unknown: break;
  }
  return "";
}

std::string describe_param(const KernelParam& p) {
  const std::string kind = kind_words(p.kind);
  const std::string what = kind.empty() ? fmt::format("{} bytes", p.bytes) : fmt::format("{}, {} bytes", kind, p.bytes);
  return p.type.empty() ? what : fmt::format("`{}` ({})", p.type, what);
}

std::string describe_arg(const CasePlan& plan, size_t i) {
  const ArgPlan& a = plan.args[i];
  if (a.kind == ArgKind::tensor) return fmt::format("/args/{}, tensor '{}' (a device pointer, 8 bytes)", i, plan.tensors[static_cast<size_t>(a.tensor)].name);
  if (a.kind != ArgKind::scalar) return fmt::format("/args/{}, {}", i, describe_layout(a, plan));
  if (a.boolean) return fmt::format("/args/{}, scalar bool (1 byte)", i);
  return fmt::format("/args/{}, scalar {} ({}, {} bytes)", i, dtype_name(a.dtype), kind_words(passed(a).kind), dtype_size(a.dtype));
}

// A struct or class parameter of the right size may hold what is passed (a wrapper of a pointer);
// only its size can be checked.
bool fits(const KernelParam& want, const KernelParam& have) {
  if (want.bytes != have.bytes) return false;
  if (have.kind == ParamKind::unknown || have.kind == ParamKind::other) return true;
  return want.kind == have.kind;
}

}  // namespace

std::string argument_mismatch(const CasePlan& plan, const std::vector<KernelParam>& params) {
  std::string out;
  if (params.size() != plan.args.size())
    out += fmt::format("the kernel takes {} parameter(s); the manifest passes {} argument(s) (/args)\n", params.size(), plan.args.size());
  for (size_t i = 0; i < std::min(params.size(), plan.args.size()); ++i) {
    if (fits(passed(plan.args[i]), params[i])) continue;
    out += fmt::format("argument {} ({}) does not match the kernel's parameter {}, {}{}\n", i, describe_arg(plan, i), i,
                       describe_param(params[i]),
                       plan.args[i].kind == ArgKind::scalar || plan.args[i].kind == ArgKind::tensor
                           ? ""
                           : "; compare each field's offset with offsetof() of the kernel's type (an empty member takes 1 byte; "
                             "describe one with {\"bytes\": 1})");
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace hk
