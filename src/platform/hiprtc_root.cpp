#include "platform/hiprtc_root.h"

#include <cstdlib>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace hk {
namespace {

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string fetched_hiprtc_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/hkcheck/hiprtc";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/hkcheck/hiprtc";
  return "";
}

std::string choose_hiprtc_root(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* e = std::getenv("HKCHECK_HIPRTC_ROOT"); e && *e) return e;
  const std::string fetched = fetched_hiprtc_dir();
  return !fetched.empty() && is_file(fetched + "/versions.txt") ? fetched : kSystemHiprtc;
}

std::string hiprtc_sysroot(const std::string& root) { return is_dir(root + "/root/usr") ? root + "/root" : root; }

std::string hiprtc_lib_dir(const std::string& root) { return hiprtc_sysroot(root) + "/usr/lib/x86_64-linux-gnu"; }

std::vector<std::string> hiprtc_loader_prefix(const std::string& root) {
  if (root == kSystemHiprtc) return {};
  if (!is_dir(root)) throw std::runtime_error("hipRTC root " + root + " is not a folder (.ci/fetch-hiprtc fills one)");
  const std::string lib = hiprtc_lib_dir(root), loader = lib + "/ld-linux-x86-64.so.2";
  if (!is_dir(lib)) throw std::runtime_error("hipRTC root " + root + " has no " + lib + " (.ci/fetch-hiprtc fills one)");
  if (!is_file(loader)) throw std::runtime_error("hipRTC root " + root + " has no loader " + loader + " (.ci/fetch-hiprtc fills one)");
  if (access(loader.c_str(), X_OK) != 0) throw std::runtime_error("the loader " + loader + " of hipRTC root " + root + " is not executable");
  return {loader, "--library-path", lib};
}

}  // namespace hk
