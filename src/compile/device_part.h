// The device part of a kernel file that also holds host code (main, launchers with <<<...>>>,
// cuBLAS or NVTX calls, host-only includes). The file is parsed by clang (libclang) as CUDA or
// HIP device code; the kernels, the __device__ functions and variables, and every declaration of
// the file they use are kept; host functions, host globals and the includes nothing kept uses are
// blanked out. Blanking keeps every byte offset and line, so a compiler's message points at the
// author's file as it is.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace hk {

// An include the device part keeps and clang found: where its directive is, and the file.
struct KeptInclude {
  unsigned begin = 0, end = 0;  // the directive's bytes in the source
  unsigned line = 0;
  std::string name;  // as written: "llmc/layernorm.cuh"
  std::string file;  // as clang found it
};

// Declarations of other files that kept code uses: the file (canonical path) -> the offsets of
// the declarations in it.
using UsedDeclarations = std::map<std::string, std::set<unsigned>>;

struct DevicePart {
  std::string source;                     // the text to compile: the file, host code blanked
  std::vector<std::string> dropped;       // what was left out, e.g. "function main (line 40)"
  std::vector<std::string> missing_headers;  // includes clang did not find that were kept
  std::vector<KeptInclude> kept_includes;    // includes clang found that were kept
  std::vector<std::string> include_dirs;     // folders of headers whose device part was put in the source
  UsedDeclarations used_elsewhere;           // what the kept code uses of the headers it includes
  std::set<std::string> device_headers;      // what dropped host-only headers brought device code (device_headers_of)
  std::vector<std::string> reached_files;    // every header the parse entered (device_part_headers.h asks who includes whom)
  bool changed() const { return !dropped.empty(); }
};

// path: the file (for the parse and its relative includes); options: the compile's options, of
// which -D, -U, -I, -isystem, -iquote and -std= are passed to the parse; hip: parse as HIP.
// What a header is parsed after: its includer's text before the #include (macros, types, the
// dialect header), as a file of that folder so that its own includes resolve; the last one
// includes the one before it.
struct IncluderText {
  std::string path;  // where it stands: beside the includer
  std::string text;
};

// roots: entries (as a manifest names them) whose kernels alone are kept, with what they use;
// empty: every kernel and device function. used: what a file that includes this one (a header)
// uses of it and of the headers it includes, kept too. context: for a header, what it is parsed
// after. Throws std::runtime_error when libclang cannot parse the file at all.
DevicePart device_part(const std::string& source, const std::string& path, const std::vector<std::string>& options, bool hip,
                       const std::vector<std::string>& roots = {}, const UsedDeclarations& used = {},
                       const std::vector<IncluderText>& context = {});

// The path with symbolic links, "." and ".." resolved, as UsedDeclarations names files.
std::string canonical_path(const std::string& path);

// Whether a header include that clang could not resolve is host-only (cuBLAS, NVTX, Torch,
// pybind, the profiler API, ...): such an include is dropped rather than kept.
bool host_only_header(const std::string& name);

// The device headers a host-only header brings in under nvcc, which device code may use without
// including them itself: cuBLAS's <cuda_fp16.h> and <cuda_bf16.h> (llm.c's __nv_bfloat16).
std::vector<std::string> device_headers_of(const std::string& host_header, bool hip);

}  // namespace hk
