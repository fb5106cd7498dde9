// What the readers of a manifest's parts share (manifest_load.cpp and the readers of args,
// compile settings and derived tensors): the error that names a field's JSON path, and the checks
// every field uses.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hk {
struct ArgSpec;
struct GeneratorSpec;
struct TensorSpec;
}  // namespace hk

namespace hk::manifest_read {

// Thrown inside one kernel's validation; caught per kernel so the others still load.
struct FieldError {
  std::string path, what;
};

[[noreturn]] void fail(const std::string& path, const std::string& what);

// "an object", "a string", ... for messages.
const char* kind_of(const nlohmann::json& j);

// Fails on a member of obj not in allowed, naming it and the fields allowed.
void check_keys(const nlohmann::json& obj, const std::string& path, std::initializer_list<const char*> allowed);
void check_keys(const nlohmann::json& obj, const std::string& path, const std::vector<std::string>& allowed);

const nlohmann::json& need(const nlohmann::json& obj, const char* key, const std::string& path);
std::string need_string(const nlohmann::json& obj, const char* key, const std::string& path);
// An expression: a JSON number or a non-empty string, evaluated later.
std::string expr_text(const nlohmann::json& v, const std::string& path);

constexpr size_t kMaxNameLength = 256;

// One of a kernel's "args" (manifest_args.cpp): a tensor name, a scalar, a struct or its parts.
ArgSpec read_arg(const nlohmann::json& v, const std::string& path, const std::vector<TensorSpec>& tensors);

// A C identifier of at most kMaxNameLength characters (macro and reference names).
bool is_identifier(const std::string& s);

// A derived tensor's init (kind "reference"): its reference and output names. Fails naming the field.
GeneratorSpec read_derived_init(const nlohmann::json& v, const std::string& path);

// The rules a kernel's derived tensors keep together (manifest_derived.cpp); path is the kernel's.
void check_derived_tensors(const std::vector<TensorSpec>& tensors, const std::string& path);

}  // namespace hk::manifest_read
