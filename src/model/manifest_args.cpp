// A kernel's "args": tensor names, scalars, and structs laid out as the kernel's C++ type is
// (arg_layout.h), so that a tile library's descriptor argument can be passed field by field.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

#include "model/manifest.h"
#include "model/manifest_read.h"

namespace hk::manifest_read {
namespace {

using nlohmann::json;

constexpr int kMaxArgDepth = 16;  // structs inside structs; deeper is a mistake, not a type

const std::map<std::string, const char*>& scalar_kinds() {
  static const std::map<std::string, const char*> kinds = {
      {"bool", "bool"},    {"i8", "int8_t"},   {"u8", "uint8_t"},  {"i16", "int16_t"}, {"u16", "uint16_t"},
      {"i32", "int32_t"},  {"u32", "uint32_t"}, {"i64", "int64_t"}, {"u64", "uint64_t"}, {"f16", "half"},
      {"bf16", "bfloat16"}, {"f32", "float"},   {"f64", "double"}};
  return kinds;
}

std::string scalar_list() {
  std::string list;
  for (const auto& [name, type] : scalar_kinds()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// A bool's value may be written true/false as well as an expression.
std::string scalar_value(const json& v, const std::string& dtype, const std::string& path) {
  if (dtype == "bool" && v.is_boolean()) return v.get<bool>() ? "1" : "0";
  return expr_text(v, path);
}

ArgSpec read_field(const json& v, const std::string& path, const std::vector<TensorSpec>& tensors, int depth);

ArgSpec read_object(const json& v, const std::string& path, const std::vector<TensorSpec>& tensors, int depth) {
  ArgSpec a;
  if (v.contains("name")) a.name = need_string(v, "name", path);
  if (v.contains("tensor")) {
    check_keys(v, path, {"tensor", "name"});
    a.kind = ArgKind::tensor;
    a.tensor = need_string(v, "tensor", path);
    if (std::none_of(tensors.begin(), tensors.end(), [&](const TensorSpec& t) { return t.name == a.tensor; }))
      fail(path + "/tensor", "no tensor named '" + a.tensor + "'");
  } else if (v.contains("struct")) {
    check_keys(v, path, {"struct", "name", "align"});
    a.kind = ArgKind::record;
    const json& fields = v["struct"];
    if (!fields.is_array()) fail(path + "/struct", fmt::format("expected an array of fields, got {}", kind_of(fields)));
    for (size_t i = 0; i < fields.size(); ++i) a.fields.push_back(read_field(fields[i], fmt::format("{}/struct/{}", path, i), tensors, depth + 1));
    if (v.contains("align")) a.align = expr_text(v["align"], path + "/align");
  } else if (v.contains("array")) {
    check_keys(v, path, {"array", "count", "name"});
    a.kind = ArgKind::array;
    a.fields.push_back(read_field(v["array"], path + "/array", tensors, depth + 1));
    a.count = expr_text(need(v, "count", path), path + "/count");
  } else if (v.contains("bytes")) {
    check_keys(v, path, {"bytes", "name"});
    a.kind = ArgKind::zeros;
    a.bytes = expr_text(v["bytes"], path + "/bytes");
  } else if (v.contains("dtype")) {
    check_keys(v, path, {"dtype", "value", "name"});
    a.scalar_dtype = need_string(v, "dtype", path);
    if (!scalar_kinds().count(a.scalar_dtype))
      fail(path + "/dtype", fmt::format("unknown scalar dtype '{}' (expected one of: {})", a.scalar_dtype, scalar_list()));
    a.value = scalar_value(need(v, "value", path), a.scalar_dtype, path + "/value");
  } else {
    fail(path, "expected a tensor name or an object with one of: tensor, dtype (with value), struct, array (with count), bytes");
  }
  return a;
}

ArgSpec read_field(const json& v, const std::string& path, const std::vector<TensorSpec>& tensors, int depth) {
  if (depth > kMaxArgDepth) fail(path, fmt::format("structs nested more than {} deep", kMaxArgDepth));
  if (v.is_string()) {
    ArgSpec a;
    a.kind = ArgKind::tensor;
    a.tensor = v.get<std::string>();
    if (std::none_of(tensors.begin(), tensors.end(), [&](const TensorSpec& t) { return t.name == a.tensor; }))
      fail(path, "no tensor named '" + a.tensor + "' (a scalar is written {\"dtype\": ..., \"value\": ...})");
    return a;
  }
  if (!v.is_object()) fail(path, fmt::format("expected a tensor name or an argument object, got {}", kind_of(v)));
  return read_object(v, path, tensors, depth);
}

}  // namespace

ArgSpec read_arg(const json& v, const std::string& path, const std::vector<TensorSpec>& tensors) { return read_field(v, path, tensors, 0); }

}  // namespace hk::manifest_read
