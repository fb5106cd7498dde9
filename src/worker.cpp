#include "worker.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend.h"
#include "case_exec.h"
#include "manifest.h"

namespace hk {
namespace {

using nlohmann::json;

class Channel {
 public:
  explicit Channel(int fd) : out_(fdopen(fd, "w")) {}
  bool ok() const { return out_ != nullptr; }
  void send(const json& msg) {
    const std::string line = msg.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    fwrite(line.data(), 1, line.size(), out_);
    fflush(out_);
  }

 private:
  FILE* out_;
};

std::unique_ptr<Backend> open_any(const WorkerOptions& opt, std::string* why) {
  std::vector<std::string> names = opt.backend == "auto" ? backend_names() : std::vector<std::string>{opt.backend};
  for (const auto& n : names) {
    try {
      return open_backend(n, opt.device, opt.host);
    } catch (const std::exception& e) {
      *why += (why->empty() ? "" : "; ") + n + ": " + e.what();
    }
  }
  if (names.empty()) *why = "this hkcheck was built without any GPU backend";
  return nullptr;
}

}  // namespace

int run_worker(const WorkerOptions& opt) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent, even a hung kernel
  Channel chan(opt.protocol_fd);
  if (!chan.ok()) {
    std::cerr << "hkcheck worker: protocol descriptor " << opt.protocol_fd << " is not open\n";
    return 2;
  }
  std::string why;
  std::unique_ptr<Backend> be = open_any(opt, &why);
  if (!be) {
    chan.send({{"type", "hello"}, {"ok", false}, {"error", why}});
    return 0;
  }
  DeviceInfo dev = be->device();
  // "auto" fell back to the CPU: say why no GPU was used, for the run's metadata.
  if (opt.backend == "auto" && dev.backend == "host" && !why.empty()) dev.note = "no GPU backend could be used: " + why;
  chan.send({{"type", "hello"}, {"ok", true}, {"device", dev}});

  CompileCache cache(opt.cache_dir);
  std::map<std::string, ManifestLoad> manifests;
  std::string line;
  while (std::getline(std::cin, line)) {
    json req;
    try {
      req = json::parse(line);
    } catch (const std::exception& e) {
      std::cerr << "hkcheck worker: bad request: " << e.what() << "\n";
      return 2;
    }
    if (req.value("type", "") == "exit") break;
    const std::string file = req.at("manifest"), kernel = req.at("kernel"), case_name = req.at("case");
    chan.send({{"type", "started"}, {"kernel", kernel}, {"case", case_name}});
    auto it = manifests.find(file);
    if (it == manifests.end()) it = manifests.emplace(file, load_manifest(file)).first;
    CaseResult r;
    r.kernel = kernel;
    r.case_name = case_name;
    r.manifest = file;
    r.status = Status::ERROR;
    r.message = "kernel or case not found in " + file + " (did the manifest change during the run?)";
    bool sticky = false;
    for (const KernelSpec& k : it->second.kernels) {
      if (k.name != kernel) continue;
      for (const CaseSpec& c : k.cases)
        if (c.name == case_name) {
          // The run's --repeat, or more when the manifest asks for it.
          const int repeat = std::max(req.value("repeat", 1), manifest_repeat(k, c));
          r = execute_case(*be, k, c, ExecOptions{req.at("seed").get<uint64_t>(), repeat, req.value("repro_dir", "")}, cache, &sticky);
        }
    }
    chan.send({{"type", "result"}, {"result", r}});
    if (sticky) return kStickyExit;
  }
  return 0;
}

}  // namespace hk
