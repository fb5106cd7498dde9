// Reading the fields of a record that crossed a process or file boundary, for its from_json.
// A field that is missing or of the wrong type is an error naming its JSON path
// ("/plan/tensors: expected an array, found a string"); the path grows as nested records are read
// through these functions, so whoever reads a file need only add the file's name.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace hk {

// A bad field at a JSON path: what() is "<path>: <problem>".
class JsonFieldError : public std::runtime_error {
 public:
  JsonFieldError(std::string path, std::string problem);
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_, problem_;
};

namespace json_field_detail {
// Inside a catch block: throws the exception being handled as a JsonFieldError one step deeper.
[[noreturn]] void rethrow_at(const std::string& step);
[[noreturn]] void missing(const nlohmann::json& j, const std::string& key);
}  // namespace json_field_detail

// out = j[key] read as T (its from_json, when T has one). Throws JsonFieldError.
template <class T>
void read_field(const nlohmann::json& j, const std::string& key, T& out) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end()) json_field_detail::missing(j, key);
  try {
    out = it->template get<T>();
  } catch (...) {
    json_field_detail::rethrow_at("/" + key);
  }
}

// As read_field, but an absent or null field leaves out as it is (its default).
template <class T>
void read_optional_field(const nlohmann::json& j, const std::string& key, T& out) {
  if (!j.is_object()) json_field_detail::missing(j, key);
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  try {
    out = it->template get<T>();
  } catch (...) {
    json_field_detail::rethrow_at("/" + key);
  }
}

// read(j[key]) for a field read by a function of its own (a number that may be NaN, a tagged
// value); errors it throws are placed at /key.
template <class Read>
auto read_field_with(const nlohmann::json& j, const std::string& key, Read&& read) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end()) json_field_detail::missing(j, key);
  try {
    return std::forward<Read>(read)(*it);
  } catch (...) {
    json_field_detail::rethrow_at("/" + key);
  }
}

// read(item) for each item of the array j[key], errors placed at /key/<index>.
template <class Read>
void for_each_item(const nlohmann::json& j, const std::string& key, Read&& read) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end()) json_field_detail::missing(j, key);
  if (!it->is_array()) throw JsonFieldError("/" + key, std::string("expected an array, found ") + it->type_name());
  for (size_t i = 0; i < it->size(); ++i) {
    try {
      read((*it)[i]);
    } catch (...) {
      json_field_detail::rethrow_at("/" + key + "/" + std::to_string(i));
    }
  }
}

}  // namespace hk
