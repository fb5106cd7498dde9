// The host backend's compiler as a Compiler: the system C++ compiler builds a kernel source into
// a shared library (backends/host/host_compiler.h), with the warp size of the host profile.
#include <fmt/format.h>

#include "backends/host/host_compiler.h"
#include "compiler.h"
#include "host_profile.h"

namespace hk {
namespace {

class HostCppCompiler final : public Compiler {
 public:
  HostCppCompiler(const HostProfile& profile, std::string cache_dir, bool races)
      : warp_size_(profile.warp_size), cache_dir_(std::move(cache_dir)), races_(races) {
    try {
      cxx_ = host::find_compiler();
    } catch (const std::exception& e) {
      throw BackendUnavailable(e.what());
    }
  }

  // Part of every compiled kernel's cache key: an instrumented build is another binary.
  std::string version() const override { return races_ ? cxx_.version + " (instrumented for --races)" : cxx_.version; }

  CompileOutput compile(const CompileRequest& q) override {
    const host::HostCompileResult r = host::compile_shared_library(cxx_, q.source, q.source_name, q.options, q.entries, warp_size_, cache_dir_, races_);
    return CompileOutput{r.ok, r.library, r.log, r.symbols, {}};
  }

 private:
  host::CompilerInfo cxx_;
  int warp_size_;
  std::string cache_dir_;
  bool races_;
};

}  // namespace

std::unique_ptr<Compiler> open_host_compiler(const HostOptions& host) {
  const HostProfile* p = find_host_profile(host.profile);
  if (!p) throw BackendUnavailable(fmt::format("unknown host profile '{}' (known: {})", host.profile, host_profile_names()));
  return std::make_unique<HostCppCompiler>(*p, host.cache_dir, host.races);
}

}  // namespace hk
