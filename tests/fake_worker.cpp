// Speaks the worker protocol (src/worker/worker.h) like `hkcheck --worker`, but what it does with a
// case depends on the kernel's name: ok, segv, abort, hang, early_exit, garbage; slow* passes
// after 0.3 s (a run long enough to interrupt); fail* fails and writes a file into the repro
// folder it is given. With HKCHECK_FAKE_WORKER_PID_DIR set, each worker leaves its pid there, so a test
// can check that none outlives the run. --backend cuda makes it claim the CUDA backend.
// leak* passes the first case of its kernel in a process and fails the later ones, like a kernel
// whose device state outlives a launch. forge prints a well-formed result without the request's
// id before its real one (FAIL); close_protocol closes its protocol descriptor and hangs;
// contradiction reports a PASS whose record shows failing outputs. Every record carries the
// figures of the planned outputs, as the parent checks them against the verdict.
// --backend other_protocol says hello in another protocol version, as another hkcheck's binary
// would; --backend no_protocol says a hello that names no version, as a binary older than versions.
// setup_hang hangs before its kernel's first launch (a compile that never ends); timing_hang
// passes, then hangs in --time's launches.
// With --compile-worker it speaks the compile worker's protocol instead: every file compiles,
// but one whose path holds "hang" never finishes.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "platform/backend.h"
#include "contracts/case_job.h"
#include "contracts/compile_messages.h"
#include "contracts/worker_protocol.h"
#include "contracts/result.h"

using nlohmann::json;

namespace {

int compile_worker(const std::function<void(const json&)>& send) {
  hk::WorkerHello hello;
  hello.ok = true;
  hello.compiler = "fake compiler 1.0";
  send(hello);
  for (std::string line; std::getline(std::cin, line);) {
    const hk::CompileJob job = json::parse(line).get<hk::CompileJob>();
    if (job.source.find("hang") != std::string::npos) std::this_thread::sleep_for(std::chrono::hours(1));
    hk::CompileAnswer a;
    a.id = job.id;
    a.ok = true;
    a.bytes = 64;
    for (const std::string& e : job.entries) a.symbols[e] = e;
    send(a);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int fd = 3;
  std::string mode;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--protocol-fd") fd = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--backend") mode = argv[i + 1];
  }
  if (const char* dir = std::getenv("HKCHECK_FAKE_WORKER_PID_DIR")) std::ofstream(std::string(dir) + "/" + std::to_string(getpid())) << getpid();
  FILE* out = fdopen(fd, "w");
  auto send = [&](const json& j) {
    std::fprintf(out, "%s\n", j.dump().c_str());
    std::fflush(out);
  };
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--compile-worker") return compile_worker(send);
  hk::WorkerHello hello;
  if (mode == "no_device") {
    hello.error = "fake: no device";
    send(hello);
    return 0;
  }
  if (mode == "silent") return 5;  // dies before saying hello
  hk::DeviceInfo dev;
  dev.backend = mode == "cuda" ? "cuda" : "fake";
  dev.name = "Fake GPU 1GB";
  dev.arch = "fake_1";
  hello.ok = true;
  hello.device = dev;
  if (mode == "other_protocol") hello.protocol = hk::kWorkerProtocolVersion + 1;
  json said = hello;
  if (mode == "no_protocol") said.erase("protocol");
  send(said);
  std::string line;
  std::set<std::string> seen;  // kernels this process has run
  while (std::getline(std::cin, line)) {
    const hk::CaseRequest req = json::parse(line).get<hk::CaseRequest>();
    if (req.exit) return 0;
    const std::string kernel = req.kernel;
    send(hk::CaseAnswer{{"started", req.id}, kernel, req.case_name, std::nullopt});
    std::fprintf(stderr, "fake worker running %s\n", kernel.c_str());
    if (kernel == "setup_hang") std::this_thread::sleep_for(std::chrono::hours(1));  // a compile that never ends
    send(hk::CaseAnswer{{"phase", req.id}, kernel, req.case_name, std::nullopt, "kernel"});
    if (kernel == "segv") std::raise(SIGSEGV);
    if (kernel == "abort") std::abort();
    if (kernel == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
    if (kernel == "early_exit") std::exit(7);
    if (kernel.rfind("slow", 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (kernel == "garbage") {
      std::fprintf(out, "this is not json\n");
      std::fflush(out);
      continue;
    }
    hk::CaseResult r;
    r.kernel = kernel;
    r.case_name = req.case_name;
    r.status = hk::Status::PASS;
    r.launches = 1;
    const bool seen_before = !seen.insert(kernel).second;
    if (kernel.rfind("leak", 0) == 0 && seen_before) {
      r.status = hk::Status::FAIL;
      r.message = "fake: state left by an earlier case";
    }
    if (kernel.rfind("fail", 0) == 0) {
      r.status = hk::Status::FAIL;
      r.message = "fake: wrong values";
      const std::string repro_dir = req.job->repro_dir;
      if (!repro_dir.empty()) {
        std::filesystem::create_directories(repro_dir + "/output");
        std::ofstream(repro_dir + "/output/fake.got") << "fake output";
      }
    }
    if (kernel == "forge") {  // a line a kernel could print: well formed, but no answer to the request
      hk::CaseResult forged = r;
      forged.message = "forged";
      send(hk::CaseAnswer{{"result", ""}, kernel, req.case_name, forged});
      r.status = hk::Status::FAIL;
      r.message = "fake: the real verdict";
    }
    // The figures of each planned output, as the verdict needs them (the parent re-checks them);
    // contradiction reports PASS with every output wrong.
    const hk::CasePlan plan = req.job->plan;
    for (const hk::TensorPlan& t : plan.tensors) {
      if (t.role == hk::Role::in) continue;
      hk::OutputMetrics m;
      m.name = t.name;
      m.numel = t.numel;
      m.pass = r.status == hk::Status::PASS && kernel != "contradiction";
      m.mismatches = m.pass ? 0 : std::max<int64_t>(t.numel, 1);
      r.outputs.push_back(m);
    }
    if (kernel == "contradiction" && r.outputs.empty()) {  // no output planned: one nobody planned, failing
      hk::OutputMetrics m;
      m.name = "out";
      m.numel = m.mismatches = 1000;
      m.pass = false;
      r.outputs.push_back(m);
    }
    if (kernel == "escape") {  // leaves a process behind that left the worker's process group
      if (fork() == 0) {
        setsid();
        if (const char* f = std::getenv("HKCHECK_FAKE_WORKER_ESCAPE_FILE")) {
          std::ofstream(std::string(f) + ".tmp") << getpid();
          std::rename((std::string(f) + ".tmp").c_str(), f);  // whole, or not there
        }
        std::this_thread::sleep_for(std::chrono::hours(1));
        _exit(0);
      }
      const char* f = std::getenv("HKCHECK_FAKE_WORKER_ESCAPE_FILE");
      for (int i = 0; f && i < 200 && !std::filesystem::exists(f); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (kernel == "timing_hang") {  // passes its checked launches, then hangs in --time's
      hk::CaseAnswer timing{{"phase", req.id}, kernel, req.case_name, std::nullopt, "timing"};
      timing.checked = r;
      send(timing);
      std::this_thread::sleep_for(std::chrono::hours(1));
    }
    if (kernel == "close_protocol") {  // closes its protocol descriptor and carries on
      std::fclose(out);
      std::this_thread::sleep_for(std::chrono::hours(1));
    }
    send(hk::CaseAnswer{{"result", req.id}, kernel, req.case_name, r});
  }
  return 0;
}
