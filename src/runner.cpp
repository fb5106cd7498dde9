#include "runner.h"

#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "expectation.h"
#include "interrupt.h"
#include "subprocess.h"
#include "worker.h"

namespace hk {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr int kProtocolFd = 3;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

// Like Subprocess::read_line, but returns early (Read::timeout with *stopped set) when the run is
// interrupted, so that a signal is answered within a tenth of a second.
Subprocess::Read read_or_stop(Subprocess& w, std::string& line, Clock::time_point deadline, bool* stopped) {
  for (;;) {
    if (interrupt_signal() != 0) {
      *stopped = true;
      return Subprocess::Read::timeout;
    }
    const auto step = std::min(deadline, Clock::now() + std::chrono::milliseconds(100));
    const auto r = w.read_line(line, step);
    if (r != Subprocess::Read::timeout || Clock::now() >= deadline) return r;
  }
}

// The second signal of an interrupt kills the running worker's group before exiting.
class CurrentWorker {
 public:
  explicit CurrentWorker(const Subprocess& w) { set_current_worker(w.pid()); }
  ~CurrentWorker() { set_current_worker(0); }
};

// Reads the worker's hello; fills *why when it does not come or says no.
std::optional<DeviceInfo> read_hello(Subprocess& w, double timeout_s, std::string* why) {
  std::string line;
  bool stopped = false;
  const auto r = read_or_stop(w, line, after(timeout_s), &stopped);
  if (r != Subprocess::Read::line) {
    if (r == Subprocess::Read::timeout) w.kill();
    const ExitStatus st = w.wait();
    *why = stopped ? "interrupted by " + signal_label(interrupt_signal())
           : r == Subprocess::Read::timeout
               ? fmt::format("the worker did not start within {} s", timeout_s)
               : "the worker ended before saying hello (" + st.describe() + ")";
    const std::string tail = w.output_tail(2000);
    if (!tail.empty()) *why += "; its output: " + tail;
    return std::nullopt;
  }
  try {
    const json hello = json::parse(line);
    if (!hello.at("ok").get<bool>()) {
      *why = hello.at("error").get<std::string>();
      return std::nullopt;
    }
    return hello.at("device").get<DeviceInfo>();
  } catch (const std::exception& e) {
    *why = std::string("bad hello from the worker: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace

std::vector<std::string> Runner::worker_argv() const {
  std::vector<std::string> argv = opt_.wrapper;  // argv[0] is then the wrapper's path
  argv.insert(argv.end(), {opt_.exe, "--worker", "--backend", opt_.backend, "--device", std::to_string(opt_.device),
                           "--protocol-fd", std::to_string(kProtocolFd)});
  if (!opt_.cache_dir.empty()) {
    argv.push_back("--cache-dir");
    argv.push_back(opt_.cache_dir);
  } else {
    argv.push_back("--no-cache");
  }
  argv.insert(argv.end(), opt_.worker_args.begin(), opt_.worker_args.end());
  return argv;
}

std::optional<DeviceInfo> Runner::probe(std::string* why) {
  try {
    Subprocess w(worker_argv(), kProtocolFd);
    CurrentWorker current(w);
    auto dev = read_hello(w, opt_.start_timeout_s, why);
    w.write_line(R"({"type":"exit"})");
    w.close_stdin();
    if (!w.wait_for(std::chrono::seconds(10))) w.kill();
    if (dev) {
      opt_.backend = dev->backend;
      arch_ = dev->arch;
    }
    return dev;
  } catch (const std::exception& e) {
    *why = e.what();
    return std::nullopt;
  }
}

CaseResult Runner::run(const KernelSpec& k, const CaseSpec& c, const std::string& repro_dir) {
  return apply_expectation(run_in_worker(k, c, repro_dir), case_expectation(k, c, arch_));
}

CaseResult Runner::run_in_worker(const KernelSpec& k, const CaseSpec& c, const std::string& repro_dir) {
  const auto t0 = Clock::now();
  CaseResult r = blank_result(k, c);
  auto finish = [&](CaseResult res) {
    res.timings.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return res;
  };
  const double timeout = k.timeout.value_or(opt_.timeout_s);
  try {
    Subprocess w(worker_argv(), kProtocolFd);
    CurrentWorker current(w);
    std::string why;
    if (!read_hello(w, opt_.start_timeout_s, &why)) {
      r.status = interrupt_signal() ? Status::NOT_RUN : Status::ERROR;
      r.message = "worker could not open the device: " + why;
      return finish(r);
    }
    json req = {{"type", "run"}, {"manifest", k.manifest}, {"kernel", k.name}, {"case", c.name}, {"seed", opt_.seed}, {"repeat", opt_.repeat}};
    if (!repro_dir.empty()) req["repro_dir"] = repro_dir;
    if (!w.write_line(req.dump())) {
      r.status = Status::ERROR;
      r.message = "could not send the case to the worker";
      return finish(r);
    }
    const auto deadline = after(timeout);
    for (;;) {
      std::string line;
      bool stopped = false;
      const auto rd = read_or_stop(w, line, deadline, &stopped);
      if (stopped) {
        w.kill();
        w.wait();
        r.status = Status::NOT_RUN;
        r.message = "interrupted by " + signal_label(interrupt_signal()) + " before the case finished; the worker was killed";
        return finish(r);
      }
      if (rd == Subprocess::Read::timeout) {
        w.kill();
        w.wait();
        r.status = Status::TIMEOUT;
        r.message = fmt::format("no result within {} s; the worker was killed", timeout);
        const std::string tail = w.output_tail(2000);
        if (!tail.empty()) r.notes.push_back("worker output: " + tail);
        return finish(r);
      }
      if (rd == Subprocess::Read::eof) {
        const ExitStatus st = w.wait();
        r.status = Status::CRASH;
        r.message = "the worker died before reporting: " + st.describe();
        const std::string tail = w.output_tail(2000);
        if (!tail.empty()) r.message += "; its output: " + tail;
        return finish(r);
      }
      const json msg = json::parse(line);
      if (msg.value("type", "") != "result") continue;  // "started"
      r = msg.at("result").get<CaseResult>();
      break;
    }
    w.write_line(R"({"type":"exit"})");
    w.close_stdin();
    if (!w.wait_for(std::chrono::seconds(10))) {
      w.kill();
      r.notes.push_back("the worker did not exit after its case and was killed");
    }
  } catch (const std::exception& e) {
    r.status = Status::ERROR;
    r.message = std::string("harness error: ") + e.what();
  }
  return finish(r);
}

}  // namespace hk
