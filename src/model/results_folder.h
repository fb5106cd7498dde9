// Where a run's results folder (--out) may be, and how to know one when a folder is searched for
// manifests: a run writes a one-case manifest.json into every repro folder, so a results folder
// inside the manifests would be read back as manifests by the next run; hkcheck's own state folder
// is skipped by that search too.
#pragma once

#include <filesystem>
#include <string>

namespace hk {

// hkcheck's own state in a project (the last run, report/last_run.h): never searched for manifests.
inline constexpr const char* kStateFolderName = ".hkcheck";

// Why out_dir cannot take a run's results (it is manifest_dir or inside it), or "" when it can.
std::string results_folder_problem(const std::string& out_dir, const std::string& manifest_dir);

// A folder hkcheck wrote results into: it holds the run lock or journal, or both reports.
bool is_results_folder(const std::filesystem::path& dir);

}  // namespace hk
