#include "run/run_environment.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>

#include "run/git_commit.h"

namespace hk {

namespace fs = std::filesystem;

std::string self_exe(const char* argv0) {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : p.string();
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/hkcheck";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/hkcheck";
  return "";
}

namespace {

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

// Who ran what, when: the part of a report's run record every mode fills the same way.
RunInfo run_info(const std::vector<std::string>& command, const std::vector<std::string>& manifest_errors) {
  RunInfo run;
  run.hkcheck_version = HKCHECK_VERSION;
  run.git_commit = git_commit();
  run.host = hostname();
  run.started_at = now_iso();
  run.command = command;
  run.manifest_errors = manifest_errors;
  return run;
}

// Workers per device: enough to keep the CPU-side work (inputs, references, comparisons) of
// some cases going while another's kernel runs, and few enough that their device contexts, which
// a GPU creates one at a time (~0.25 s each), do not hold up the start.
int default_jobs(size_t devices) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::clamp(cores / (2 * static_cast<int>(devices)), std::min(cores, 2), 8);
}

// Threads each worker spreads the inputs, packing and comparison of a big case over. More than
// cores / workers: while some workers wait on their GPU or have finished, the others get the
// idle cores (the last big cases of a run would otherwise run on one core each).
int worker_cpu_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency() / 2)); }

}  // namespace hk
