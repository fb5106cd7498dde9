#include "util/json_field.h"

namespace hk {

JsonFieldError::JsonFieldError(std::string path, std::string problem)
    : std::runtime_error(path + ": " + problem), path_(std::move(path)), problem_(std::move(problem)) {}

namespace json_field_detail {

namespace {

// nlohmann's "[json.exception.type_error.302] type must be string, but is number" without its tag.
std::string without_tag(const std::string& what) {
  if (what.rfind("[json.exception.", 0) != 0) return what;
  const size_t end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

}  // namespace

void rethrow_at(const std::string& step) {
  try {
    throw;
  } catch (const JsonFieldError& e) {
    throw JsonFieldError(step + e.path(), e.problem());
  } catch (const std::exception& e) {
    throw JsonFieldError(step, without_tag(e.what()));
  }
}

void missing(const nlohmann::json& j, const std::string& key) {
  if (!j.is_object()) throw JsonFieldError("", std::string("expected an object with a field \"") + key + "\", found " + j.type_name());
  throw JsonFieldError("/" + key, "missing");
}

}  // namespace json_field_detail

}  // namespace hk
