#include "contracts/compile_messages.h"

#include <nlohmann/json.hpp>

#include "util/json_field.h"

namespace hk {

using nlohmann::json;

void to_json(json& j, const CompileJob& c) {
  j = {{"id", c.id}, {"source", c.source}, {"options", c.options}, {"entries", c.entries}};
  if (c.run_device) j["run_device"] = *c.run_device;
}

void from_json(const json& j, CompileJob& c) {
  read_field(j, "id", c.id);
  read_field(j, "source", c.source);
  read_field(j, "options", c.options);
  read_field(j, "entries", c.entries);
  if (const auto it = j.find("run_device"); it != j.end() && !it->is_null()) read_field(j, "run_device", c.run_device.emplace());
}

void to_json(json& j, const EntryResources& r) {
  j = r.figures ? json{{"figures", *r.figures}} : json{{"error", r.error}};
}

void from_json(const json& j, EntryResources& r) {
  r = EntryResources{};
  if (j.is_object() && j.contains("figures")) read_field(j, "figures", r.figures.emplace());
  else read_field(j, "error", r.error);
}

void to_json(json& j, const CompileAnswer& a) {
  j = {{"id", a.id},   {"ok", a.ok}, {"log", a.log},         {"summaries", a.summaries},       {"bytes", a.bytes},
       {"ms", a.ms},   {"cached", a.cached}, {"left_to_another", a.left_to_another}, {"symbols", a.symbols},                {"entry_errors", a.entry_errors}, {"resources_by_entry", a.resources_by_entry}};
}

void from_json(const json& j, CompileAnswer& a) {
  a = CompileAnswer{};
  read_field(j, "id", a.id);
  read_field(j, "ok", a.ok);
  read_field(j, "log", a.log);
  read_field(j, "summaries", a.summaries);
  read_field(j, "bytes", a.bytes);
  read_field(j, "ms", a.ms);
  read_field(j, "cached", a.cached);
  read_optional_field(j, "left_to_another", a.left_to_another);
  read_field(j, "symbols", a.symbols);
  read_field(j, "entry_errors", a.entry_errors);
  read_field_with(j, "resources_by_entry", [&](const json& by_entry) {  // each entry's errors at /resources_by_entry/<entry>
    if (!by_entry.is_object()) throw JsonFieldError("", std::string("expected an object, found ") + by_entry.type_name());
    for (auto it = by_entry.begin(); it != by_entry.end(); ++it) read_field(by_entry, it.key(), a.resources_by_entry[it.key()]);
  });
}

}  // namespace hk
