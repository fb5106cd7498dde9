// known_bad_check RESULTS_JSON CORPUS_DIR: exits 0 when a run of the known-bad corpus reached
// every verdict the corpus declares (see known_bad_checker.h), else prints each problem and exits 1.
#include <fmt/format.h>
#include <fstream>

#include "known_bad_checker.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: known_bad_check RESULTS_JSON CORPUS_DIR\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    fmt::print(stderr, "known_bad_check: cannot read {}\n", argv[1]);
    return 2;
  }
  nlohmann::json results;
  try {
    results = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    fmt::print(stderr, "known_bad_check: {} is not valid JSON: {}\n", argv[1], e.what());
    return 2;
  }
  std::vector<hk::KernelSpec> corpus;
  for (const std::string& file : hk::find_manifests(argv[2])) {
    hk::ManifestLoad load = hk::load_manifest(file);
    for (const std::string& e : load.errors) fmt::print(stderr, "known_bad_check: manifest error: {}\n", e);
    if (!load.errors.empty()) return 2;
    corpus.insert(corpus.end(), load.kernels.begin(), load.kernels.end());
  }
  const auto problems = hk::test::check_known_bad_run(results, corpus);
  for (const std::string& p : problems) fmt::print(stderr, "known_bad_check: {}\n", p);
  size_t cases = 0;
  for (const auto& k : corpus) cases += k.cases.size();
  fmt::print(stderr, "known_bad_check: {} cases, {} problem(s)\n", cases, problems.size());
  return problems.empty() ? 0 : 1;
}
