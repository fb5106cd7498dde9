// Speaks the worker protocol (src/worker.h) like `hkcheck --worker`, but what it does with a
// case depends on the kernel's name: ok, segv, abort, hang, early_exit, garbage.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "backend.h"
#include "result.h"

using nlohmann::json;

int main(int argc, char** argv) {
  int fd = 3;
  std::string mode;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--protocol-fd") fd = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--backend") mode = argv[i + 1];
  }
  FILE* out = fdopen(fd, "w");
  auto send = [&](const json& j) {
    std::fprintf(out, "%s\n", j.dump().c_str());
    std::fflush(out);
  };
  if (mode == "no_device") {
    send({{"type", "hello"}, {"ok", false}, {"error", "fake: no device"}});
    return 0;
  }
  if (mode == "silent") return 5;  // dies before saying hello
  hk::DeviceInfo dev;
  dev.backend = "fake";
  dev.name = "Fake GPU 1GB";
  dev.arch = "fake_1";
  send({{"type", "hello"}, {"ok", true}, {"device", dev}});
  std::string line;
  while (std::getline(std::cin, line)) {
    const json req = json::parse(line);
    if (req["type"] == "exit") return 0;
    const std::string kernel = req["kernel"];
    send({{"type", "started"}, {"kernel", kernel}, {"case", req["case"]}});
    std::fprintf(stderr, "fake worker running %s\n", kernel.c_str());
    if (kernel == "segv") std::raise(SIGSEGV);
    if (kernel == "abort") std::abort();
    if (kernel == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
    if (kernel == "early_exit") std::exit(7);
    if (kernel == "garbage") {
      std::fprintf(out, "this is not json\n");
      std::fflush(out);
      continue;
    }
    hk::CaseResult r;
    r.kernel = kernel;
    r.case_name = req["case"];
    r.status = hk::Status::PASS;
    send({{"type", "result"}, {"result", r}});
  }
  return 0;
}
