// A run's results as the commands that read them back take them (diff, merge, --last-failed,
// --shard-durations): a results folder stands for the test_results.json in it, read through
// ResultsDocument's from_json (contracts/results_document.h) and nothing else.
#pragma once

#include <string>

#include "contracts/results_document.h"

namespace hk {

struct ResultsFile {
  std::string path;  // the file read, for messages
  ResultsDocument doc;
};

// Throws std::runtime_error "<path>: cannot be read", or "<path>: <json path>: <what>" when it is
// not a results file of a schema version this hkcheck reads.
ResultsFile read_results_file(const std::string& folder_or_file);

}  // namespace hk
