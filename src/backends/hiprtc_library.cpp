#include "backends/hiprtc_library.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>
#include <glob.h>
#include <link.h>
#include <stdexcept>
#include <sys/stat.h>

#include "platform/backend.h"
#include "util/file_util.h"
#include "platform/hiprtc_root.h"

namespace hk {
namespace {

bool file_exists(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : p;
}

std::string base_name(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }
std::string dir_name(const std::string& p) {
  const size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// The file a loaded symbol comes from, its links resolved.
std::string file_of(const void* symbol) {
  Dl_info info{};
  if (!dladdr(symbol, &info) || !info.dli_fname) return "";
  return real_path(info.dli_fname);
}

// The system's hipRTC, found by its names, and whether it is ROCm 5's, inside libamdhip64.
std::pair<std::unique_ptr<DynLib>, bool> open_system_hiprtc() {
  try {
    return {DynLib::open({"libhiprtc.so", "libhiprtc.so.7", "libhiprtc.so.6", "/opt/rocm/lib/libhiprtc.so"}), false};
  } catch (const BackendUnavailable&) {  // ROCm 5: hipRTC is part of libamdhip64
    return {DynLib::open({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"}), true};
  }
}

// The hipRTC library in a root's library folder, by full path.
std::string hiprtc_file_in(const std::string& root, const std::string& dir) {
  for (const char* name : {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5"})
    if (file_exists(dir + "/" + name)) return dir + "/" + name;
  throw BackendUnavailable(fmt::format("hipRTC root {} has no libhiprtc.so.7, .so.6 or libhiprtc.so in {} (.ci/fetch-hiprtc fills one)", root, dir));
}

// The comgr that hipRTC will load, opened now with every library it needs (RTLD_NOW), from dir
// when it is there, else by the system's search.
std::unique_ptr<DynLib> open_comgr(const std::string& hiprtc_file, const std::string& dir, bool root_only) {
  std::string bytes;
  try {
    bytes = read_file(hiprtc_file, "hipRTC library");
  } catch (const std::exception& e) {
    throw BackendUnavailable(e.what());
  }
  const std::string soname = comgr_soname_in(bytes);
  // A system hipRTC that loads no comgr of its own (a test double, a static build) needs none
  // opened; a root's must have one, or it is not what .ci/fetch-hiprtc makes.
  if (soname.empty() && !root_only) return nullptr;
  if (soname.empty()) throw BackendUnavailable(hiprtc_file + " names no libamd_comgr.so.N: not a hipRTC this hkcheck knows");
  const std::string sibling = dir + "/" + soname;
  if (root_only || file_exists(sibling)) return DynLib::open({sibling});
  return DynLib::open({soname});
}

struct LoadedFiles {
  std::string llvm;
};

int find_llvm(dl_phdr_info* info, size_t, void* data) {
  const std::string name = info->dlpi_name ? info->dlpi_name : "";
  if (base_name(name).rfind("libLLVM", 0) != 0) return 0;
  static_cast<LoadedFiles*>(data)->llvm = name;
  return 1;
}

// The LLVM comgr loaded: its own answer where it gives one (LLVMGetVersion, LLVM 16 on), else
// its file's name. "" when comgr carries LLVM inside itself.
std::string loaded_llvm_version() {
  LoadedFiles found;
  dl_iterate_phdr(find_llvm, &found);
  if (found.llvm.empty()) return "";
  if (void* h = dlopen(found.llvm.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    using GetVersion = void (*)(unsigned*, unsigned*, unsigned*);
    const auto get = reinterpret_cast<GetVersion>(dlsym(h, "LLVMGetVersion"));
    unsigned major = 0, minor = 0, patch = 0;
    if (get) get(&major, &minor, &patch);
    dlclose(h);
    if (get && major > 0) return fmt::format("{}.{}.{}", major, minor, patch);
  }
  return llvm_version_in_file_name(base_name(real_path(found.llvm)));
}

std::string comgr_version(const DynLib& comgr) {
  using GetVersion = void (*)(size_t*, size_t*);
  if (const auto get = reinterpret_cast<GetVersion>(comgr.try_symbol("amd_comgr_get_version"))) {
    size_t major = 0, minor = 0;
    get(&major, &minor);
    return fmt::format("{}.{}", major, minor);
  }
  // Older comgr has no such call: its file's version (libamd_comgr.so.2.4.0).
  const std::string file = base_name(file_of(comgr.try_symbol("amd_comgr_create_data")));
  const std::string v = version_after(file, "libamd_comgr.so.");
  return v.empty() ? "?" : v;
}

// "/usr/lib/x86_64-linux-gnu" -> "/usr", "/opt/rocm-6.4.0/lib" -> "/opt/rocm-6.4.0".
std::string prefix_of_lib_dir(const std::string& dir) {
  for (const std::string tail : {"/lib/x86_64-linux-gnu", "/lib64", "/lib"})
    if (dir.size() > tail.size() && dir.compare(dir.size() - tail.size(), tail.size(), tail) == 0)
      return dir.substr(0, dir.size() - tail.size());
  return dir + "/..";
}

std::vector<std::string> glob_paths(const std::string& pattern) {
  glob_t g{};
  std::vector<std::string> out;
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

}  // namespace

std::string version_after(const std::string& file_name, const std::string& stem) {
  if (file_name.size() <= stem.size() || file_name.compare(0, stem.size(), stem) != 0) return "";
  const std::string v = file_name.substr(stem.size());
  return std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }) ? v : "";
}

std::string llvm_version_in_file_name(const std::string& file_name) {
  if (std::string v = version_after(file_name, "libLLVM.so."); !v.empty()) return v;  // libLLVM.so.22.1
  const std::string stem = "libLLVM-";
  if (file_name.rfind(stem, 0) != 0) return "";
  const size_t so = file_name.find(".so", stem.size());
  if (so == std::string::npos) return "";
  const std::string v = file_name.substr(stem.size(), so - stem.size());  // libLLVM-15.so.1, libLLVM-14.0.6.so.1
  return !v.empty() && version_after("x" + v, "x") == v ? v : "";
}

std::string comgr_soname_in(const std::string& bytes) {
  static const std::string kStem = "libamd_comgr.so.";
  for (size_t at = bytes.find(kStem); at != std::string::npos; at = bytes.find(kStem, at + 1)) {
    size_t end = at + kStem.size();
    while (end < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[end]))) ++end;
    if (end > at + kStem.size()) return bytes.substr(at, end - at);
  }
  return "";
}

HiprtcLibrary open_hiprtc_library(const std::string& root) {
  HiprtcLibrary h;
  if (root == kSystemHiprtc) {
    std::tie(h.lib, h.rocm5) = open_system_hiprtc();
    const std::string file = file_of(h.lib->symbol("hiprtcCreateProgram"));
    h.comgr = open_comgr(file, dir_name(file), false);
  } else {
    // Comgr first, by full path: what it cannot load is named here, before hipRTC ever asks.
    const std::string dir = hiprtc_lib_dir(root), file = hiprtc_file_in(root, dir);
    h.comgr = open_comgr(file, dir, true);
    h.lib = DynLib::open({file});
    h.rocm5 = base_name(file).rfind("libamdhip64", 0) == 0;
  }
  const std::string file = file_of(h.lib->symbol("hiprtcCreateProgram"));
  std::string version = version_after(base_name(file), h.rocm5 ? "libamdhip64.so." : "libhiprtc.so.");
  if (version.empty()) version = "(" + base_name(file) + ")";
  const std::string llvm = loaded_llvm_version();
  h.llvm_major = llvm.substr(0, llvm.find('.'));
  h.label = h.comgr ? fmt::format("hipRTC {} (comgr {}{})", version, comgr_version(*h.comgr), llvm.empty() ? "" : ", LLVM " + llvm)
                    : fmt::format("hipRTC {} (no comgr of its own)", version);
  h.prefix = prefix_of_lib_dir(dir_name(file));
  if (file_exists(h.prefix + "/include/hip/hip_runtime.h")) h.hip_include = h.prefix + "/include";
  return h;
}

std::vector<std::string> no_builtin_header_includes(const std::string& prefix, const std::string& llvm_major) {
  // Debian lays clang's resource headers out as lib/llvm-N/lib/clang/N/include, ROCm as
  // lib/llvm/lib/clang/N/include; the one of comgr's LLVM when several are there.
  std::vector<std::string> found;
  for (const char* pattern : {"/lib/llvm-*/lib/clang/*/include", "/lib/llvm/lib/clang/*/include", "/llvm/lib/clang/*/include"})
    for (const std::string& p : glob_paths(prefix + pattern))
      if (file_exists(p + "/__clang_hip_runtime_wrapper.h")) found.push_back(p);
  if (found.empty())
    throw std::runtime_error("--hiprtc-no-builtin-header needs clang's resource headers (__clang_hip_runtime_wrapper.h); none under " +
                             prefix + "/lib/llvm*/lib/clang/*/include");
  std::sort(found.rbegin(), found.rend());
  std::string resource = found.front();
  for (const std::string& p : found)
    if (!llvm_major.empty() && p.find("/clang/" + llvm_major + "/") != std::string::npos) {
      resource = p;
      break;
    }
  if (!file_exists(prefix + "/include/hip/hip_runtime.h"))
    throw std::runtime_error("--hiprtc-no-builtin-header needs the HIP headers; there is no " + prefix + "/include/hip/hip_runtime.h");
  return {"-isystem", resource, "-I" + prefix + "/include", "-I" + prefix + "/include/hip"};
}

}  // namespace hk
