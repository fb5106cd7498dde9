#include "run/worker_session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/prctl.h>

#include "contracts/case_phase.h"
#include "contracts/worker_protocol.h"
#include "process/interrupt.h"
#include "process/memory_limit.h"
#include "process/process_tree.h"
#include "process/orphans.h"
#include "check/output_check.h"
#include "worker/worker.h"
#include "process/subprocess.h"
#include "model/status.h"

namespace hk {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

// Like Subprocess::read_line, but returns early (Read::timeout with *stopped set) when the run is
// interrupted, so that a signal is answered within a tenth of a second, and (Read::timeout with
// *held set) when the worker's processes hold more than memory_limit bytes, looked at as often.
Subprocess::Read read_or_stop(Subprocess& w, std::string& line, Clock::time_point deadline, bool* stopped, uint64_t memory_limit = 0,
                              uint64_t* held = nullptr) {
  return w.read_line_unless(line, deadline, [&] {
    if (interrupt_signal() != 0) {
      *stopped = true;
      return true;
    }
    if (memory_limit > 0 && held != nullptr) {
      if (const uint64_t bytes = tree_resident_bytes(w.pid()); bytes > memory_limit) {
        *held = bytes;
        return true;
      }
    }
    return false;
  });
}

std::string with_output(std::string text, const Subprocess& w) {
  const std::string tail = w.output_tail(2000);
  return tail.empty() ? text : text + "; its output: " + tail;
}

// Reads the worker's hello; fills *why when it does not come, says no or speaks another protocol.
std::optional<DeviceInfo> read_hello(Subprocess& w, const std::string& exe, double timeout_s, std::string* why) {
  std::string line;
  bool stopped = false;
  const auto r = read_or_stop(w, line, after(timeout_s), &stopped);
  if (r != Subprocess::Read::line) {
    if (r == Subprocess::Read::timeout) w.kill();
    const ExitStatus st = w.wait();
    *why = with_output(stopped ? "interrupted by " + signal_label(interrupt_signal())
                       : r == Subprocess::Read::timeout ? fmt::format("the worker did not start within {} s", timeout_s)
                                                        : "the worker ended before saying hello (" + st.describe() + ")",
                       w);
    return std::nullopt;
  }
  WorkerHello hello;
  try {
    hello = json::parse(line).get<WorkerHello>();
  } catch (const std::exception& e) {
    *why = std::string("bad hello from the worker: ") + e.what();
    return std::nullopt;
  }
  if (*why = hello_mismatch(hello, exe); !why->empty()) return std::nullopt;
  if (!hello.ok) {
    *why = hello.error;
    return std::nullopt;
  }
  if (!hello.device) *why = "bad hello from the worker: /device: missing";
  return hello.device;
}

// What a worker that said nothing more about its case left us: the verdict and its message.
void fill_lost_case(CaseResult& r, Subprocess& w, Subprocess::Read rd, bool stopped, double timeout_s, const std::string& phase) {
  // A second signal kills the workers from the handler: a worker gone while the run stops was
  // stopped, not crashed, and --resume must run its case again.
  if (stopped || interrupt_signal() != 0) {
    r.status = Status::NOT_RUN;
    r.message = "interrupted by " + signal_label(interrupt_signal()) + " before the case finished; the worker was killed";
  } else if (rd == Subprocess::Read::timeout) {
    w.kill();
    w.wait();
    r.status = Status::TIMEOUT;
    r.message = phase == kPhaseKernel ? fmt::format("the kernel did not finish within {} s of its first launch; the worker was killed", timeout_s)
                                      : fmt::format("no result within {} s of the start of its {}; the worker was killed", timeout_s, phase);
    const std::string tail = w.output_tail(2000);
    if (!tail.empty()) r.notes.push_back("worker output: " + tail);
  } else if (w.wait_for(std::chrono::seconds(2))) {
    r.status = Status::CRASH;
    r.message = with_output("the worker died before reporting: " + w.wait().describe(), w);
  } else {  // the protocol closed under a live worker: only the kernel or a broken worker does that
    w.kill();
    w.wait();
    r.status = Status::CRASH;
    r.message = with_output("the worker closed its protocol descriptor without reporting (did the kernel close descriptor 3?); it was killed", w);
  }
}

// A case lost while its worker ran the reference (case_phase.h) is an ERROR of the reference: the
// kernel's output was taken and not judged, and the kernel may be right.
void blame_the_reference(CaseResult& r, const std::string& reference) {
  if (r.status != Status::CRASH && r.status != Status::TIMEOUT) return;
  const char* what = r.status == Status::TIMEOUT ? "did not finish" : "crashed";
  r.status = Status::ERROR;
  r.message = fmt::format("the reference '{}' {}, so the kernel's output was not judged (an error of the reference, not a verdict on "
                          "the kernel): {}",
                          reference, what, r.message);
}

// A case lost before its first launch: the compile or the inputs waited for the CPU or hung, and
// the kernel never ran.
void blame_the_setup(CaseResult& r, const std::string& phase) {
  if (r.status != Status::CRASH && r.status != Status::TIMEOUT) return;
  const bool timed_out = r.status == Status::TIMEOUT;
  r.status = Status::ERROR;
  if (timed_out) r.reason = reason_name(Reason::SETUP_TIMEOUT);
  r.message = fmt::format("the case's {} {} before the kernel's first launch, so the kernel never ran (not a verdict on it{}): {}",
                          phase == kPhaseCompile ? "compile" : "inputs", timed_out ? "did not finish" : "crashed",
                          timed_out ? "; --compile-timeout bounds it" : "", r.message);
}

// A case whose --time launches ran past their time: the verdict of its checked launches stands.
CaseResult keep_the_verdict(CaseResult checked, double limit_s, int launches) {
  checked.notes.push_back(fmt::format("no timing: the {} timed launches did not finish within {} s, and the worker was killed; "
                                      "the verdict is that of the checked launches",
                                      launches, limit_s));
  return checked;
}

// The deadline of the part of a case its worker runs now (CaseTimeouts).
class PhaseClockOfCase {
 public:
  explicit PhaseClockOfCase(const CaseTimeouts& t) : t_(t) { enter(kPhaseInputs); }
  void enter(const std::string& phase) {
    // One setup clock runs through inputs and compile; every other part starts its own.
    const bool setup = before_the_kernel(phase);
    if (!(setup && in_setup_)) {
      limit_s_ = setup ? t_.setup_s : t_.kernel_s;
      started_ = Clock::now();
      deadline_ = after(limit_s_);
    }
    in_setup_ = setup;
    phase_ = phase;
  }
  const std::string& phase() const { return phase_; }
  Clock::time_point deadline() const { return deadline_; }
  double limit_s() const { return limit_s_; }
  double ms_in_phase() const { return std::chrono::duration<double, std::milli>(Clock::now() - started_).count(); }

 private:
  CaseTimeouts t_;
  std::string phase_;
  bool in_setup_ = false;
  double limit_s_ = 0;
  Clock::time_point started_, deadline_;
};

// A worker's record, checked against the case it answers and against its own figures.
CaseResult check_record(CaseResult r, const CaseJob& job) {
  if (r.kernel != job.kernel || r.case_name != job.case_name)
    throw std::runtime_error(fmt::format("the worker answered for {} / {} when asked for {} / {}", r.kernel, r.case_name, job.kernel, job.case_name));
  // The verdict must follow from the record's own figures by the rule that decided it
  // (output_check.h): a record that does not was forged or corrupted, and is never a PASS.
  if (const std::string why = verdict_contradiction(r, job.plan); !why.empty())
    throw std::runtime_error(fmt::format("the worker reported {}, which its own record contradicts: {}", status_name(r.status), why));
  return r;
}

// A worker whose processes held more memory than --memory-limit allows.
void fill_memory_case(CaseResult& r, Subprocess& w, uint64_t held, uint64_t limit) {
  w.kill();
  w.wait();
  r.status = Status::CRASH;
  r.reason = reason_name(Reason::MEMORY_LIMIT);
  r.message = with_output(fmt::format("the worker's processes held {} of memory, over --memory-limit {}; they were killed",
                                      bytes_text(held), bytes_text(limit)),
                          w);
}

void note_ignored(CaseResult& r, int ignored) {
  if (ignored) r.notes.push_back(fmt::format("ignored {} line(s) on the protocol descriptor that did not answer this case (printed by the kernel?)", ignored));
}

// A worker that wrote more than the parent reads of lines that answer nothing.
void fill_flooded_case(CaseResult& r, Subprocess& w, size_t bytes) {
  w.kill();
  w.wait();
  r.status = Status::CRASH;
  r.message = with_output(fmt::format("the worker wrote {} MiB of lines that are not protocol messages on its protocol descriptor "
                                      "(printed by the kernel?); it was killed",
                                      bytes >> 20),
                          w);
}

// The worker's binary in its command line, after any wrapper.
std::string worker_exe(const std::vector<std::string>& argv) {
  const auto w = std::find(argv.begin(), argv.end(), "--worker");
  return w != argv.begin() && w != argv.end() ? *(w - 1) : argv.front();
}

// Whether msg is an answer to request id: anything else is ignored unread.
bool answers(const json& msg, const std::string& id) {
  try {
    return msg.get<AnswerHeader>().id == id;
  } catch (const std::exception&) {
    return false;
  }
}

// Names one request, so that only its own answer is taken: a line a kernel prints on the
// protocol descriptor, or one left over from an earlier case, does not carry it.
std::string request_id() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = std::random_device{}() ^ (static_cast<uint64_t>(std::random_device{}()) << 32);
  return fmt::format("{:016x}-{}", salt, counter++);
}

}  // namespace

WorkerSession::WorkerSession(WorkerLaunch launch) : launch_(std::move(launch)) {}

WorkerSession::~WorkerSession() { close(); }

std::optional<DeviceInfo> WorkerSession::start(std::string* why) {
  discard();
  // A host kernel may run as this user (backends/host/kernel_process.h): it must not trace this
  // process or read its memory (the request ids) and descriptors (the workers' pipes) in /proc.
  prctl(PR_SET_DUMPABLE, 0);
  alive_ = std::make_unique<LiveWorkerMark>();  // another runner's sweep of orphans spares it from now on
  try {
    worker_ = std::make_unique<Subprocess>(launch_.argv, kWorkerProtocolFd, launch_.env);
  } catch (const std::exception& e) {
    alive_.reset();
    *why = e.what();
    return std::nullopt;
  }
  add_running_worker(worker_->pid());
  auto dev = read_hello(*worker_, worker_exe(launch_.argv), launch_.start_timeout_s, why);
  if (!dev) discard();
  return dev;
}

bool WorkerSession::sent(const std::string& request, CaseResult& r, double* start_ms) {
  std::string why;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!worker_) {
      const auto t_start = Clock::now();
      const bool started = start(&why).has_value();
      *start_ms += std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
      if (!started) {
        r.status = interrupt_signal() ? Status::NOT_RUN : Status::ERROR;
        r.message = "worker could not open the device: " + why;
        return false;
      }
    }
    if (worker_->write_line(request)) return true;
    why = with_output("could not send the case to the worker", *worker_);
    discard();
  }
  r.message = why;
  return false;
}

bool WorkerSession::answered(const CaseJob& job, const std::string& id, const CaseTimeouts& timeouts, CaseResult& r) {
  PhaseClockOfCase clock(timeouts);
  int ignored = 0;
  size_t ignored_bytes = 0;
  std::optional<CaseResult> checked;  // the verdict before --time's launches
  auto lost = [&]() {
    note_ignored(r, ignored);
    discard();
    return false;
  };
  for (;;) {
    std::string line;
    bool stopped = false;
    uint64_t held = 0;
    const auto rd = read_or_stop(*worker_, line, clock.deadline(), &stopped, launch_.memory_limit, &held);
    if (held > 0) {
      fill_memory_case(r, *worker_, held, launch_.memory_limit);
      if (clock.phase() == kPhaseReference) blame_the_reference(r, job.reference);
      return lost();
    }
    if (rd != Subprocess::Read::line) {
      const double ms_in_phase = clock.ms_in_phase();  // before the kill, which a wrapper can make slow
      fill_lost_case(r, *worker_, rd, stopped, clock.limit_s(), clock.phase());
      if (r.status == Status::TIMEOUT && clock.phase() == kPhaseKernel) r.timings.kernel_ms = ms_in_phase;
      if (clock.phase() == kPhaseReference) blame_the_reference(r, job.reference);
      if (before_the_kernel(clock.phase())) blame_the_setup(r, clock.phase());
      if (checked && r.status == Status::TIMEOUT) r = keep_the_verdict(*checked, clock.limit_s(), job.time_launches);
      return lost();
    }
    // Anything but this request's JSON answer (a kernel printing on the descriptor, garbage
    // included) is ignored and counted, never taken as the harness's error.
    const json msg = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!answers(msg, id)) {
      ++ignored;
      ignored_bytes += line.size() + 1;
      if (ignored_bytes > Subprocess::kMaxProtocolLine) {  // a flood: the parent will not read it all
        fill_flooded_case(r, *worker_, ignored_bytes);
        return lost();
      }
      continue;
    }
    const CaseAnswer answer = msg.get<CaseAnswer>();
    if (!answer.result) {  // "started", or the part of the case it runs now
      if (answer.header.type == "phase") clock.enter(answer.phase);
      if (answer.checked) checked = check_record(*answer.checked, job);
      continue;
    }
    r = check_record(*answer.result, job);
    note_ignored(r, ignored);
    return true;
  }
}

CaseResult WorkerSession::run(const CaseJob& job, const CaseTimeouts& timeouts) {
  const auto t0 = Clock::now();
  CaseResult r = job_result(job);
  double worker_start_ms = 0;
  bool kept = false;  // the worker answered and stays for the next case
  try {
    const std::string id = request_id();
    if (sent(json(CaseRequest{false, id, job.kernel, job.case_name, job, ""}).dump(), r, &worker_start_ms)) {
      history_.push_back(job.kernel + " / " + job.case_name);
      kept = answered(job, id, timeouts, r);
    }
  } catch (const std::exception& e) {
    r.status = Status::ERROR;
    r.message = std::string("harness error: ") + e.what();
    discard();
  }
  if (kept && r.status != Status::PASS && r.status != Status::SKIP) close();
  r.timings.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  r.timings.worker_start_ms = worker_start_ms;
  return r;
}

void WorkerSession::close() {
  if (!worker_) return;
  CaseRequest exit;
  exit.exit = true;
  worker_->write_line(json(exit).dump());
  worker_->close_stdin();
  if (!worker_->wait_for(std::chrono::seconds(10))) worker_->kill();
  discard();
}

void WorkerSession::discard() {
  if (worker_) {
    remove_running_worker(worker_->pid());
    worker_->kill();
    worker_->wait();
    worker_.reset();
  }
  alive_.reset();
  history_.clear();
}

}  // namespace hk
