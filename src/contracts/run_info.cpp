#include "contracts/run_info.h"
#include "util/json_field.h"

#include <nlohmann/json.hpp>

namespace hk {

using nlohmann::json;

namespace {

json optional_text(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
std::string text_or_null(const json& j) { return j.is_null() ? std::string() : j.get<std::string>(); }

// The fields schema 1 and 2 share.
void read_common(const json& j, RunInfo& r) {
  read_field(j, "hkcheck_version", r.hkcheck_version);
  read_field(j, "git_commit", r.git_commit);
  read_field(j, "host", r.host);  // the machine that ran it: not a backend name
  read_field(j, "started_at", r.started_at);
  r.device.reset();
  if (!j.contains("device") || !j["device"].is_null()) read_field(j, "device", r.device.emplace());
  read_field(j, "command", r.command);
  read_field(j, "manifest_errors", r.manifest_errors);
  read_field(j, "wall_s", r.wall_s);
  r.interrupted = text_or_null(j.at("interrupted"));
  r.resumed_from = text_or_null(j.at("resumed_from"));
  r.sanitizer.reset();
  if (!j.contains("sanitizer") || !j["sanitizer"].is_null()) read_field(j, "sanitizer", r.sanitizer.emplace());
}

}  // namespace

void to_json(json& j, const SanitizerRun& s) {
  j = s.ran ? json{{"ran", true}, {"tool_path", s.tool_path}, {"tools", s.tools}, {"every_case", s.every_case}}
            : json{{"ran", false}, {"why", s.why}};
}

void from_json(const json& j, SanitizerRun& s) {
  s = SanitizerRun{};
  read_field(j, "ran", s.ran);
  if (!s.ran) {
    read_field(j, "why", s.why);
    return;
  }
  read_field(j, "tool_path", s.tool_path);
  read_field(j, "tools", s.tools);
  read_field(j, "every_case", s.every_case);
}

void to_json(json& j, const RunInfo& r) {
  j = {{"hkcheck_version", r.hkcheck_version},
       {"git_commit", r.git_commit},
       {"host", r.host},  // not a backend name
       {"started_at", r.started_at},
       {"wall_s", r.wall_s},
       {"spec", r.spec},
       {"device", r.device ? json(*r.device) : json(nullptr)},
       {"command", r.command},
       {"manifest_errors", r.manifest_errors},
       {"interrupted", optional_text(r.interrupted)},
       {"resumed_from", optional_text(r.resumed_from)},
       {"sanitizer", r.sanitizer ? json(*r.sanitizer) : json(nullptr)},
       {"missing_shards", r.missing_shards}};
}

void from_json(const json& j, RunInfo& r) {
  r = RunInfo{};
  read_common(j, r);
  read_field(j, "spec", r.spec);
  read_field(j, "missing_shards", r.missing_shards);
}

RunInfo run_info_from_schema_1(const json& j) {
  RunInfo r;
  read_common(j, r);
  read_field(j, "seed", r.spec.seed);
  r.spec.seeds = j.value("seeds", std::vector<uint64_t>{});  // absent before --seeds existed
  read_field(j, "backend", r.spec.backend);
  r.spec.tier = j.value("tier", std::string("all"));
  r.spec.source_vendor = j.value("source_vendor", std::string());  // absent before --source existed
  return r;
}

}  // namespace hk
