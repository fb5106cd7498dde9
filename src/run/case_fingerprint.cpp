#include "run/case_fingerprint.h"

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "contracts/case_job.h"
#include "util/file_util.h"
#include "util/fnv1a.h"
#include "compile/include_closure.h"
#include "refs/runtime_references.h"

namespace hk {
namespace {

// A source file and every header it reaches (include_closure.h), once per process for each id (a
// run's files do not change under it). A file that cannot be read counts by that fact.
std::string sources_key(const std::string& id, const std::string& path, const std::function<std::string(const std::string&)>& closure) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(id); it != known.end()) return it->second;
  std::string text = "(none)";
  if (!path.empty()) {
    try {
      const std::string source = read_file(path);
      text = source + "\n" + closure(source);
    } catch (const std::exception& e) {
      text = std::string("(unreadable: ") + e.what() + ")";
    }
  }
  return known[id] = fmt::format("{:016x}", fnv1a(text));
}

std::string expectations(const KernelSpec& k, const CaseSpec& c) {
  std::string s = fmt::format("timeout {}\n", k.timeout ? fmt::format("{}", *k.timeout) : "run's");
  for (const auto* list : {&k.expect, &c.expect})
    for (const ExpectedVerdict& e : *list) s += e.status + "|" + e.arch + "|" + e.why + "\n";
  return s;
}

}  // namespace

std::string case_fingerprint(const KernelSpec& k, const CaseSpec& c, uint64_t run_seed, int run_repeat, const std::string& reference_file,
                             const std::string& project_root) {
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
  const RootRelative root(project_root);
  // The kernel's headers as its compile searches for them.
  const std::vector<std::string> options = kernel_compile_options({}, k.source, k.include_dirs, k.compile_options);
  const std::string kernel = sources_key(fmt::format("{}\n{}", k.source, fmt::join(options, "\n")), k.source, [&](const std::string& text) {
    return include_closure_key(text, k.source, include_search(options), root);
  });
  const std::string reference =
      sources_key(reference_file, reference_file, [&](const std::string&) { return reference_includes_key(reference_file, "", root); });
  text += "\n" + expectations(k, c) + "\n" + kernel + "\n" + reference;
  return fmt::format("{:016x}", fnv1a(text));
}

}  // namespace hk
