// known_bad_check RESULTS_JSON CORPUS_DIR [--controls-only]: exits 0 when a run of the known-bad
// corpus reached every verdict the corpus declares (see known_bad_checker.h), else prints each
// problem and exits 1. --controls-only checks only the cases that declare nothing (they must
// PASS): for a run under --races, which turns races declared FLAKY into FAIL and runs blocks on
// one OS thread, so that float atomics no longer differ from launch to launch.
#include <fmt/format.h>
#include <fstream>

#include "known_bad_checker.h"
#include "model/manifest_load.h"

int main(int argc, char** argv) {
  const bool controls_only = argc == 4 && std::string(argv[3]) == "--controls-only";
  if (argc != 3 && !controls_only) {
    fmt::print(stderr, "usage: known_bad_check RESULTS_JSON CORPUS_DIR [--controls-only]\n");
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
    for (hk::KernelSpec& k : load.kernels) {
      if (controls_only) {
        if (!k.expect.empty()) continue;
        std::erase_if(k.cases, [](const hk::CaseSpec& c) { return !c.expect.empty(); });
      }
      corpus.push_back(std::move(k));
    }
  }
  const auto problems = hk::test::check_known_bad_run(results, corpus);
  for (const std::string& p : problems) fmt::print(stderr, "known_bad_check: {}\n", p);
  size_t cases = 0;
  for (const auto& k : corpus) cases += k.cases.size();
  fmt::print(stderr, "known_bad_check: {} cases, {} problem(s)\n", cases, problems.size());
  return problems.empty() ? 0 : 1;
}
