#include "compile_worker.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>

#include "compile_attribution.h"
#include "compiler.h"
#include "file_util.h"
#include "protocol_channel.h"

namespace hk {

int run_compile_worker(const CompileWorkerOptions& opt) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
  ProtocolChannel chan(opt.protocol_fd);
  if (!chan.ok()) {
    std::cerr << "hkcheck compile worker: protocol descriptor " << opt.protocol_fd << " is not open\n";
    return 2;
  }
  std::unique_ptr<Compiler> compiler;
  try {
    compiler = open_compiler(opt.backend, opt.arch, opt.host);
  } catch (const std::exception& e) {
    chan.send({{"type", "hello"}, {"ok", false}, {"error", e.what()}});
    return 0;
  }
  chan.send({{"type", "hello"}, {"ok", true}, {"compiler", compiler->version()}});
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json req, res;
    try {
      req = nlohmann::json::parse(line);
      res["id"] = req.at("id");
      const std::string path = req.at("source");
      const auto t0 = std::chrono::steady_clock::now();
      const CompileRequest q{read_file(path, "kernel source"), path, req.at("options").get<std::vector<std::string>>(),
                             req.value("entries", std::vector<std::string>{})};
      const CompileOutput c = compile_entries([&](const CompileRequest& r) { return compiler->compile(r); }, q);
      res["ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      res["ok"] = c.ok;
      res["log"] = c.log;
      res["bytes"] = c.binary.size();
      res["symbols"] = c.symbols;
      res["entry_errors"] = c.entry_errors;
      if (!c.ok) res["summary"] = compile_error_summary(c.log, q.source, path, req.value("entry", ""), q.entries);
    } catch (const std::exception& e) {
      res["ok"] = false;
      res["log"] = std::string("hkcheck: ") + e.what();
    }
    chan.send(res);
  }
  return 0;
}

}  // namespace hk
