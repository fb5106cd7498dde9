// A run's results as the commands that read them back take them (diff, merge, --last-failed,
// --shard-durations): a results folder stands for the test_results.json in it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hk {

struct ResultsFile {
  std::string path;  // the file read, for messages
  nlohmann::json doc;
};

// Throws std::runtime_error "<path>: cannot be read", or "<path>: not a results file: <why>"
// when it is not JSON or has no "cases" array.
ResultsFile read_results_file(const std::string& folder_or_file);

}  // namespace hk
