#include "contracts/run_info.h"

#include <nlohmann/json.hpp>

namespace hk {

using nlohmann::json;

namespace {

json optional_text(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
std::string text_or_null(const json& j) { return j.is_null() ? std::string() : j.get<std::string>(); }

// The fields schema 1 and 2 share.
void read_common(const json& j, RunInfo& r) {
  r.hkcheck_version = j.at("hkcheck_version").get<std::string>();
  r.git_commit = j.at("git_commit").get<std::string>();
  r.host = j.at("host").get<std::string>();
  r.started_at = j.at("started_at").get<std::string>();
  r.device.reset();
  if (!j.at("device").is_null()) r.device = j["device"].get<DeviceInfo>();
  r.command = j.at("command").get<std::vector<std::string>>();
  r.manifest_errors = j.at("manifest_errors").get<std::vector<std::string>>();
  r.wall_s = j.at("wall_s").get<double>();
  r.interrupted = text_or_null(j.at("interrupted"));
  r.resumed_from = text_or_null(j.at("resumed_from"));
  r.sanitizer.reset();
  if (!j.at("sanitizer").is_null()) r.sanitizer = j["sanitizer"].get<SanitizerRun>();
}

}  // namespace

void to_json(json& j, const SanitizerRun& s) {
  j = s.ran ? json{{"ran", true}, {"tool_path", s.tool_path}, {"tools", s.tools}, {"every_case", s.every_case}}
            : json{{"ran", false}, {"why", s.why}};
}

void from_json(const json& j, SanitizerRun& s) {
  s = SanitizerRun{};
  s.ran = j.at("ran").get<bool>();
  if (!s.ran) {
    s.why = j.at("why").get<std::string>();
    return;
  }
  s.tool_path = j.at("tool_path").get<std::string>();
  s.tools = j.at("tools").get<std::vector<std::string>>();
  s.every_case = j.at("every_case").get<bool>();
}

void to_json(json& j, const RunInfo& r) {
  j = {{"hkcheck_version", r.hkcheck_version},
       {"git_commit", r.git_commit},
       {"host", r.host},
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
  r.spec = j.at("spec").get<RunSpec>();
  r.missing_shards = j.at("missing_shards").get<std::vector<std::string>>();
}

RunInfo run_info_from_schema_1(const json& j) {
  RunInfo r;
  read_common(j, r);
  r.spec.seed = j.at("seed").get<uint64_t>();
  r.spec.seeds = j.value("seeds", std::vector<uint64_t>{});  // absent before --seeds existed
  r.spec.backend = j.at("backend").get<std::string>();
  r.spec.tier = j.value("tier", std::string("all"));
  r.spec.source_vendor = j.value("source_vendor", std::string());  // absent before --source existed
  return r;
}

}  // namespace hk
