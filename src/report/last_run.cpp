#include "report/last_run.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "util/file_util.h"

namespace hk {

namespace fs = std::filesystem;

namespace {

constexpr int kLastRunVersion = 1;

fs::path state_folder(const std::string& project_folder) { return fs::path(project_folder) / kStateFolderName; }

}  // namespace

bool record_last_run(const std::string& project_folder, const std::string& out_dir, std::string* err) {
  std::error_code ec;
  const fs::path dir = state_folder(project_folder);
  fs::create_directories(dir, ec);
  if (ec) {
    *err = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  // As pytest's cache folder does: git leaves it out without a line in the project's .gitignore.
  if (!fs::exists(dir / ".gitignore", ec) && !write_file_atomic((dir / ".gitignore").string(), "# hkcheck's own state\n*\n", err)) return false;
  const nlohmann::json j = {{"hkcheck_last_run", kLastRunVersion}, {"results", fs::absolute(out_dir, ec).lexically_normal().string()}};
  return write_file_atomic((dir / "last-run.json").string(), j.dump(1) + "\n", err);
}

std::string last_run_results(const std::string& project_folder) {
  const fs::path file = state_folder(project_folder) / "last-run.json";
  std::ifstream in(file);
  if (!in) throw std::runtime_error("no last run is recorded for this project (" + file.string() + "): run it once, or name a results folder");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("hkcheck_last_run").get<int>() != kLastRunVersion) throw std::runtime_error("/hkcheck_last_run: not a version this hkcheck reads");
    return j.at("results").get<std::string>();
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace hk
