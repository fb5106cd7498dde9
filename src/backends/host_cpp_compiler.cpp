// The host backend's compiler as a Compiler: the system C++ compiler builds a kernel source into
// a shared library (backends/host/host_compiler.h), with the warp size of the host profile.
#include <fmt/format.h>

#include "backends/host/host_compiler.h"
#include "backends/host/static_shared.h"
#include "platform/compiler.h"
#include "platform/host_profile.h"

namespace hk {
namespace {

class HostCppCompiler final : public Compiler {
 public:
  HostCppCompiler(const HostProfile& profile, std::string cache_dir, bool races)
      : profile_(profile), warp_size_(profile.warp_size), cache_dir_(std::move(cache_dir)), races_(races) {
    try {
      cxx_ = host::find_compiler(profile.arch.rfind("gfx", 0) == 0);
    } catch (const std::exception& e) {
      throw BackendUnavailable(e.what());
    }
  }

  // Part of every compiled kernel's cache key: an instrumented build is another binary, and so is
  // one of an earlier build recipe (a library linked without its bounds-check entry points).
  std::string version() const override {
    return cxx_.version + (races_ ? " (bounds-checked, instrumented for --races)" : " (bounds-checked)");
  }

  CompileOutput compile(const CompileRequest& q) override {
    host::HostCompileResult r = host::compile_shared_library(cxx_, q.source, q.source_name, q.options, q.entries, warp_size_,
                                                                 profile_.arch, cache_dir_, races_);
    if (r.ok) refuse_static_shared_over_limit(r);
    return CompileOutput{r.ok, r.library, r.log, r.symbols, {}};
  }

 private:
  // A GPU compiler refuses a kernel whose __shared__ arrays are over the per-block limit (ptxas:
  // "uses too much shared data"; AMD: local memory exceeds the LDS): the profile's GPU would, so
  // this compile does, with the figures. Dynamic shared memory is checked at launch (HW_LIMIT).
  void refuse_static_shared_over_limit(host::HostCompileResult& r) const {
    for (const auto& [entry, symbol] : r.symbols) {
      const int64_t bytes = host::static_shared_bytes_of_symbol(r.library, symbol);
      if (bytes <= profile_.shared_per_block) continue;
      r.ok = false;
      r.log += fmt::format(
          "hkcheck host backend: entry '{}' declares {} bytes of static shared memory (__shared__ arrays), {} over the {} bytes "
          "a kernel may declare statically on {} (host profile {}); {}'s compiler refuses it likewise\n",
          entry, bytes, bytes - profile_.shared_per_block, profile_.shared_per_block, profile_.arch, profile_.name, profile_.arch);
    }
  }

  HostProfile profile_;

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
