// The project's last run, as pytest keeps .pytest_cache: PROJECT/.hkcheck/last-run.json names the
// results folder of the last run that checked something, for a bare --lf / --last-failed. A run
// that selects nothing, or checks nothing, leaves it as it was.
#pragma once

#include <string>

#include "model/results_folder.h"  // kStateFolderName

namespace hk {

inline constexpr const char* kLastRunSentinel = "\x01last-run";  // --last-failed given no folder

// Records out_dir (made absolute) as the project's last run. Best effort: a project folder that
// cannot be written (read-only checkout) keeps no state; *err says why.
bool record_last_run(const std::string& project_folder, const std::string& out_dir, std::string* err);

// The results folder the project's last run wrote. Throws std::runtime_error naming the file
// when there is no last run or it cannot be read.
std::string last_run_results(const std::string& project_folder);

}  // namespace hk
