#include "case_fingerprint.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "case_job.h"
#include "file_util.h"
#include "fnv1a.h"
#include "header_fingerprint.h"

namespace hk {
namespace {

// The hash of a file's content, read once per process (a run's files do not change under it, as
// header_fingerprint also assumes). A file that cannot be read counts by that fact.
std::string content_hash(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(path); it != known.end()) return it->second;
  std::string text = "(none)";
  if (!path.empty()) {
    try {
      text = read_file(path);
    } catch (const std::exception& e) {
      text = std::string("(unreadable: ") + e.what() + ")";
    }
  }
  return known[path] = fmt::format("{:016x}", fnv1a(text));
}

std::string expectations(const KernelSpec& k, const CaseSpec& c) {
  std::string s = fmt::format("timeout {}\n", k.timeout ? fmt::format("{}", *k.timeout) : "run's");
  for (const auto* list : {&k.expect, &c.expect})
    for (const ExpectedVerdict& e : *list) s += e.status + "|" + e.arch + "|" + e.why + "\n";
  return s;
}

}  // namespace

std::string case_fingerprint(const KernelSpec& k, const CaseSpec& c, uint64_t run_seed, int run_repeat, const std::string& reference_file) {
  std::string text;
  try {
    nlohmann::json job = make_case_job(k, c, run_seed, run_repeat, "");
    // Paths as this run spelled them (relative or not) do not count: the contents below do.
    for (const char* path : {"manifest", "source", "reference_library"}) job.erase(path);
    job.erase("reference_cache");  // where the reference's outputs come from changes no verdict
    text = job.dump();
  } catch (const PlanError& e) {
    text = std::string("plan error: ") + e.what();
  }
  std::vector<std::string> header_dirs = k.include_dirs;
  header_dirs.push_back(std::filesystem::absolute(k.source).parent_path().string());
  text += "\n" + expectations(k, c) + "\n" + header_fingerprint(header_dirs) + "\n" + content_hash(k.source) + "\n" + content_hash(reference_file);
  return fmt::format("{:016x}", fnv1a(text));
}

}  // namespace hk
