#include "contracts/results_document.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "util/fnv1a.h"

namespace hk {

using nlohmann::json;

std::string compile_log_id(const std::string& log) { return fmt::format("log-{:08x}", static_cast<uint32_t>(fnv1a(log))); }

void to_json(json& j, const ResultsDocument& d) {
  Counts c;
  for (const CaseResult& r : d.cases) c.add(r.status);
  json summary = {{"total", c.total}};
  for (const StatusInfo& i : status_table()) summary[i.name] = c[i.status];
  // A file that does not compile fails every case of every entry with the same log: the log is
  // kept once under "compile_logs", and each case names it.
  json cases = d.cases, logs = json::object();
  for (json& cj : cases) {
    if (!cj.contains("compile_log")) continue;
    const std::string id = compile_log_id(cj["compile_log"].get<std::string>());
    logs[id] = cj["compile_log"];
    cj["compile_log"] = id;
  }
  j = {{"schema", "hkcheck-results"}, {"schema_version", kResultsSchemaVersion}, {"run", d.run}, {"summary", summary},
       {"compile_logs", logs}, {"cases", cases}};
}

void from_json(const json& j, ResultsDocument& d) {
  if (!j.is_object() || j.value("schema", json()) != "hkcheck-results")
    throw std::runtime_error("/schema: not an hkcheck results file (expected \"hkcheck-results\")");
  const json version = j.value("schema_version", json());
  if (!version.is_number_integer() || version.get<int>() < kOldestResultsSchemaVersion || version.get<int>() > kResultsSchemaVersion)
    throw std::runtime_error(fmt::format("/schema_version: {} is not a version this hkcheck reads ({} to {}); a newer hkcheck wrote it?",
                                         version.dump(), kOldestResultsSchemaVersion, kResultsSchemaVersion));
  d.schema_version = version.get<int>();
  try {
    d.run = d.schema_version == 1 ? run_info_from_schema_1(j.at("run")) : j.at("run").get<RunInfo>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("/run: ") + e.what());
  }
  const json logs = j.value("compile_logs", json::object());  // schema 1 files before compile logs were shared
  if (!j.contains("cases") || !j["cases"].is_array()) throw std::runtime_error("/cases: expected an array of case records");
  d.cases.clear();
  for (size_t i = 0; i < j["cases"].size(); ++i) {
    json c = j["cases"][i];
    try {
      if (c.contains("compile_log")) {
        const std::string id = c.at("compile_log").get<std::string>();
        if (logs.contains(id)) c["compile_log"] = logs[id];
        else if (d.schema_version > 1) throw std::runtime_error("/compile_log: '" + id + "' is not in /compile_logs");
        // else: a schema 1 file from before logs were shared keeps the text in the case
      }
      d.cases.push_back(c.get<CaseResult>());
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("/cases/{}: {}", i, e.what()));
    }
  }
}

}  // namespace hk
