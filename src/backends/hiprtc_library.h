// Opening a hipRTC library and saying which compiler it really is. hiprtcVersion() answers "9.0"
// for ROCm 5.2, 6.4 and 7.2 alike, so the name comes from the files: the library's own file
// (libhiprtc.so.7.2.53211), comgr's version and the LLVM comgr loaded. hipRTC loads comgr only on
// its first compile and, when comgr cannot load, calls a null pointer: comgr is loaded here first,
// so a missing library is an error naming it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platform/dynlib.h"

namespace hk {

struct HiprtcLibrary {
  std::unique_ptr<DynLib> comgr;  // opened first, kept open for hipRTC to find by its soname; null when it loads none
  std::unique_ptr<DynLib> lib;    // hipRTC's entry points
  bool rocm5 = false;             // hipRTC inside libamdhip64 (ROCm 5): no --hiprtc-no-builtin-header
  std::string label;              // "hipRTC 7.2.53211 (comgr 3.0, LLVM 22.1.8)"
  std::string prefix;             // the folder holding this hipRTC's include/ and lib/ (/usr, ROOT/root/usr)
  std::string hip_include;        // prefix/include when it holds the HIP headers (hip/hip_runtime.h), else ""
  std::string llvm_major;         // "22", or "" when no libLLVM was loaded
};

// root: "system" (the system's library search) or a folder .ci/fetch-hiprtc filled, whose
// libraries are opened by full path. Throws BackendUnavailable naming the file that did not load
// and dlerror's text.
HiprtcLibrary open_hiprtc_library(const std::string& root);

// What follows `stem` in a library's file name: ("libhiprtc.so.7.2.53211", "libhiprtc.so.") ->
// "7.2.53211"; "" when the name does not start with stem.
std::string version_after(const std::string& file_name, const std::string& stem);
// LLVM's version in its library's file name: libLLVM-15.so.1 -> "15", libLLVM.so.22.1 -> "22.1",
// libLLVM-14.0.6.so.1 -> "14.0.6"; "" for any other name.
std::string llvm_version_in_file_name(const std::string& file_name);
// The comgr soname a hipRTC library's bytes name ("libamd_comgr.so.3"), or "".
std::string comgr_soname_in(const std::string& library_bytes);

// The include options hipRTC's --hiprtc-no-builtin-header mode needs, found under prefix: the
// clang resource headers (-isystem PREFIX/lib/llvm-N/lib/clang/N/include) and the HIP headers
// (-I PREFIX/include, -I PREFIX/include/hip). Throws std::runtime_error naming where it looked.
std::vector<std::string> no_builtin_header_includes(const std::string& prefix, const std::string& llvm_major);

}  // namespace hk
