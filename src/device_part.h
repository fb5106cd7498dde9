// The device part of a kernel file that also holds host code (main, launchers with <<<...>>>,
// cuBLAS or NVTX calls, host-only includes). The file is parsed by clang (libclang) as CUDA or
// HIP device code; the kernels, the __device__ functions and variables, and every declaration of
// the file they use are kept; host functions, host globals and the includes nothing kept uses are
// blanked out. Blanking keeps every byte offset and line, so a compiler's message points at the
// author's file as it is.
#pragma once

#include <string>
#include <vector>

namespace hk {

struct DevicePart {
  std::string source;                     // the text to compile: the file, host code blanked
  std::vector<std::string> dropped;       // what was left out, e.g. "function main (line 40)"
  std::vector<std::string> missing_headers;  // includes clang did not find that were kept
  bool changed() const { return !dropped.empty(); }
};

// path: the file (for the parse and its relative includes); options: the compile's options, of
// which -D, -U, -I, -isystem, -iquote and -std= are passed to the parse; hip: parse as HIP.
// Throws std::runtime_error when libclang cannot parse the file at all.
DevicePart device_part(const std::string& source, const std::string& path, const std::vector<std::string>& options, bool hip);

// Whether a header include that clang could not resolve is host-only (cuBLAS, NVTX, Torch,
// pybind, the profiler API, ...): such an include is dropped rather than kept.
bool host_only_header(const std::string& name);

}  // namespace hk
