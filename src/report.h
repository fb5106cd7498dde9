// Run reports: test_results.json (schema in docs/results.md) and test_results.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "result.h"
#include "verdict_note.h"

namespace hk {

constexpr int kResultsSchemaVersion = 1;

struct RunInfo {
  std::string hkcheck_version, git_commit, host, started_at;  // started_at: ISO 8601 UTC
  uint64_t seed = 0;
  std::vector<uint64_t> seeds;  // --seeds: every case ran once per seed (seed is then unused)
  std::string backend;
  std::string tier = "all";  // size tiers run: "all" or "small"
  std::string source_vendor;  // which file of kernels with one per vendor ran: "cuda" or "hip"
  nlohmann::json device;  // DeviceInfo, or null when no device was found
  std::vector<std::string> command;
  std::vector<std::string> manifest_errors;
  double wall_s = 0;
  std::string interrupted;         // "SIGINT" or "SIGTERM" when the run was stopped early
  std::string resumed_from;        // the journal a --resume run continued
  nlohmann::json sanitizer;        // what --sanitize found (tool path, or why it did not run)
  bool markdown_every_case = false;  // --md-every-case: the markdown lists passing cases too
};

Counts count_results(const std::vector<CaseResult>& results);

nlohmann::json results_json(const RunInfo& run, const std::vector<CaseResult>& results);
// The name a compile log goes by in the reports: "log-" and 8 hex digits of its hash.
std::string compile_log_id(const std::string& log);
// The markdown is for a pull-request comment: it stays under this many characters (GitHub's
// limit is 65,536) unless every case was asked for, and says where the rest is.
constexpr size_t kMarkdownBudget = 60000;
std::string results_markdown(const RunInfo& run, const std::vector<CaseResult>& results);

// Writes both files into dir (created if needed), each atomically. Returns false with *err.
bool write_reports(const std::string& dir, const RunInfo& run, const std::vector<CaseResult>& results, std::string* err);

}  // namespace hk
