// Run reports: test_results.json (schema in docs/results.md) and test_results.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contracts/results_document.h"
#include "contracts/run_info.h"
#include "contracts/result.h"
#include "check/verdict_note.h"

namespace hk {

Counts count_results(const std::vector<CaseResult>& results);

// test_results.json: the ResultsDocument of run and results (contracts/results_document.h).
nlohmann::json results_json(const RunInfo& run, const std::vector<CaseResult>& results);
// The markdown is for a pull-request comment: it stays under this many characters (GitHub's
// limit is 65,536) unless every case was asked for, and says where the rest is.
constexpr size_t kMarkdownBudget = 60000;
std::string results_markdown(const RunInfo& run, const std::vector<CaseResult>& results);

// Writes both files into dir (created if needed), each atomically. Returns false with *err.
bool write_reports(const std::string& dir, const RunInfo& run, const std::vector<CaseResult>& results, std::string* err);

}  // namespace hk
