#include "run/compile_ahead.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <thread>

#include "contracts/case_job.h"
#include "contracts/worker_protocol.h"
#include "util/file_util.h"
#include "process/subprocess.h"
#include "util/threads.h"

namespace hk {
namespace {

using Clock = std::chrono::steady_clock;

// The next protocol line before deadline, or nothing (the process is then killed) when it ended,
// took too long or the run stops.
bool read_answer(Subprocess& proc, std::string& line, Clock::time_point deadline, const std::atomic<bool>& stopping) {
  return proc.read_line_unless(line, deadline, [&] { return stopping.load(); }) == Subprocess::Read::line;
}

std::unique_ptr<Subprocess> start_compile_worker(const CompileAheadOptions& opt, const DeviceInfo& device, const std::atomic<bool>& stopping) {
  std::vector<std::string> argv = {opt.exe, "--compile-worker", "--backend", device.backend, "--arch", device.arch, "--protocol-fd", std::to_string(kWorkerProtocolFd),
                                   "--cache-dir", opt.cache_dir, "--yield-cpu"};
  if (!opt.project_root.empty()) argv.insert(argv.end(), {"--project-root", opt.project_root});
  auto proc = std::make_unique<Subprocess>(argv, kWorkerProtocolFd);
  std::string line;
  if (!read_answer(*proc, line, Clock::now() + kWorkerHello, stopping)) return nullptr;
  try {
    const WorkerHello hello = nlohmann::json::parse(line).get<WorkerHello>();
    if (!hello.ok || !hello_mismatch(hello, opt.exe).empty() || hello.compiler != device.runtime_version) return nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
  return proc;
}

}  // namespace

std::vector<CompileJob> ahead_compile_jobs(const std::vector<std::pair<const KernelSpec*, const CaseSpec*>>& cases, const DeviceInfo& device,
                                           uint64_t seed, int repeat, const CompileCache* kept) {
  std::vector<CompileJob> jobs;
  std::set<std::string> seen;  // source, options and entries of each job
  std::map<std::string, std::string> sources;  // path -> text, for the keys of what is kept
  for (const auto& [k, c] : cases) {
    CaseJob job;
    try {
      job = make_case_job(*k, *c, seed, repeat, "");
    } catch (const std::exception&) {
      continue;  // its worker reports the plan's error
    }
    CompileRequest how = case_compile(job, "");  // the compile worker reads the file
    // A configuration already asked for is not looked up again: an --all asks for 215 among 1910 cases.
    std::string id = job.source;
    for (const auto* list : {&how.options, &how.entries})
      for (const std::string& s : *list) id += "\n" + s;
    if (!seen.insert(id).second) continue;
    if (kept) {
      auto [text, fresh] = sources.emplace(job.source, "");
      try {
        if (fresh) text->second = read_file(job.source, "kernel source");
      } catch (const std::exception&) {
        continue;  // its worker says why
      }
      how.source = text->second;
      if (kept->kept_for_run(device, how)) continue;
    }
    CompileJob q{"", job.source, std::move(how.options), std::move(how.entries), device};
    q.id = std::to_string(jobs.size());
    jobs.push_back(std::move(q));
  }
  return jobs;
}

int compile_ahead_processes(int workers) {
  if (const char* v = std::getenv("HKCHECK_COMPILE_AHEAD"); v && *v) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n >= 0 && n <= 1024) return static_cast<int>(n);
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(0, cores - workers);
}

CompileAhead::CompileAhead(CompileAheadOptions opt, std::vector<CompileJob> jobs)
    : CompileAhead(std::move(opt), [jobs = std::move(jobs)] { return jobs; }) {}

CompileAhead::CompileAhead(CompileAheadOptions opt, std::function<std::vector<CompileJob>()> make_jobs) : opt_(std::move(opt)) {
  if (opt_.processes <= 0) return;
  mark_ = std::make_unique<LiveWorkerMark>();
  running_ = 1;
  planner_ = std::thread([this, make = std::move(make_jobs)] {
    jobs_ = make();
    const int processes = static_cast<int>(std::min(static_cast<size_t>(opt_.processes), jobs_.size()));
    jobs_count_ = static_cast<int>(jobs_.size());
    processes_ = processes;
    running_ += processes;
    on_threads(processes, [this](int) { feed(); });
    --running_;
  });
}

CompileAhead::~CompileAhead() { stop(); }

void CompileAhead::stop() {
  stopping_ = true;
  if (planner_.joinable()) planner_.join();
  mark_.reset();
}

CompileAhead::Tally CompileAhead::tally() const { return Tally{processes_, jobs_count_, made_, found_, left_, failed_}; }

void CompileAhead::feed() {
  struct Ended {
    std::atomic<int>& running;
    ~Ended() { --running; }
  } ended{running_};
  const DeviceInfo& device = *jobs_.front().run_device;
  std::unique_ptr<Subprocess> proc;
  for (size_t i; !stopping_ && (i = next_++) < jobs_.size();) {
    try {
      if (!proc && !(proc = start_compile_worker(opt_, device, stopping_))) return;  // no such compiler here: the workers compile
      std::string line;
      const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(opt_.timeout_s * 1000));
      if (!proc->write_line(nlohmann::json(jobs_[i]).dump()) || !read_answer(*proc, line, deadline, stopping_)) {
        proc->kill();
        proc.reset();
        ++failed_;
        continue;
      }
      const CompileAnswer a = nlohmann::json::parse(line).get<CompileAnswer>();
      if (a.left_to_another) ++left_;
      else if (!a.ok) ++failed_;
      else if (a.cached) ++found_;
      else ++made_;
    } catch (const std::exception&) {
      ++failed_;
      proc.reset();
    }
  }
  if (proc) proc->kill();
}

}  // namespace hk
