#include "contracts/results_file.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hk {

ResultsFile read_results_file(const std::string& folder_or_file) {
  namespace fs = std::filesystem;
  ResultsFile r;
  r.path = fs::is_directory(folder_or_file) ? (fs::path(folder_or_file) / "test_results.json").string() : folder_or_file;
  std::ifstream in(r.path);
  if (!in) throw std::runtime_error(r.path + ": cannot be read");
  try {
    r.doc = nlohmann::json::parse(in).get<ResultsDocument>();
  } catch (const std::exception& e) {
    throw std::runtime_error(r.path + ": " + e.what());
  }
  return r;
}

}  // namespace hk
