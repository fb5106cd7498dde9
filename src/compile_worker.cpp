#include "compile_worker.h"

#include <chrono>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>

#include "code_object_resources.h"
#include "compile_attribution.h"
#include "compiler.h"
#include "file_util.h"
#include "kernel_file_compile.h"
#include "protocol_channel.h"

namespace hk {

namespace {

// What the compiled code says of the kernel (code_object_resources.h), or why it says nothing.
nlohmann::json read_resources(const std::string& backend, const CompileOutput& c, const std::string& symbol) {
  std::string why;
  std::optional<KernelResources> r = backend == "cuda" ? cubin_resources(c.binary, symbol, &why)
                                     : backend == "hip" ? amdgpu_resources(c.binary, symbol, &why)
                                                        : std::nullopt;
  if (!r) return {{"error", why.empty() ? "no resources for this backend" : why}};
  if (backend == "cuda") add_ptxas_figures(c.log, symbol, *r);
  return *r;
}

// The log without the verbose assembler's per-kernel figures, which only resources needed.
std::string without_ptxas_info(const std::string& log) {
  std::string out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("ptxas info", 0) != 0 && line.rfind("ptxas         .", 0) != 0) out += line + "\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

int run_compile_worker(const CompileWorkerOptions& opt) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
  ProtocolChannel chan(opt.protocol_fd);
  if (!chan.ok()) {
    std::cerr << "hkcheck compile worker: protocol descriptor " << opt.protocol_fd << " is not open\n";
    return 2;
  }
  std::unique_ptr<Compiler> compiler;
  try {
    compiler = open_compiler(opt.backend, opt.arch, opt.host, opt.hiprtc_root);
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
      CompileRequest q{read_file(path, "kernel source"), path, req.at("options").get<std::vector<std::string>>(),
                       req.value("entries", std::vector<std::string>{})};
      if (opt.backend == "cuda") q.options.push_back("--ptxas-options=-v");  // spills and shared memory per kernel
      CompileOutput c = compile_kernel_file([&](const CompileRequest& r) { return compiler->compile(r); }, q, opt.backend);
      // Every entry's figures: the parent answers every kernel of the file from this one compile.
      if (c.ok)
        for (const auto& [name, symbol] : c.symbols) res["resources_by_entry"][name] = read_resources(opt.backend, c, symbol);
      c.log = without_ptxas_info(c.log);
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
