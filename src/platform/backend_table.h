// Every backend hkcheck knows, one row each: its name and the names of its vendor and compiler as
// manifests, options and results spell them, and what it can do; how each opens its device and
// its compiler is platform/backend_open.cpp's, one opener per row.
// Code outside this table and backends/ asks a row instead of comparing names (a test holds it:
// tests/name_tables_check.py), so a fourth backend is a row here, its opener and a folder
// under backends/.
#pragma once

#include <string>
#include <vector>

namespace hk {

enum class BackendId { cuda, hip, host };

// Where a compiled kernel's register and shared-memory figures are read from
// (contracts/code_object_resources.h): a CUBIN, an AMDGPU code object, or nowhere.
enum class ResourceFormat { none, cubin, amdgpu };

struct BackendRow {
  BackendId id;
  const char* name;   // --backend and results' "backend": "cuda"
  const char* title;  // in messages: "CUDA"
  // The vendor whose files it compiles, as a manifest's per-vendor "source" and sections name it;
  // "" for the host backend, which compiles either vendor's.
  const char* source_vendor;
  const char* source_extension;  // "cu": a file of that vendor
  const char* arch_prefix;       // "sm_": an arch of its targets; "" for none
  const char* compiler;          // as a manifest's compiler sections name it: "nvrtc"
  const char* compiler_title;    // in messages: "NVRTC"
  const char* macro;             // defined to 1 in every compile: "HK_BACKEND_CUDA"
  const char* visible_devices;   // the variable that picks its GPUs: "CUDA_VISIBLE_DEVICES"; "" for none
  const char* prelude;           // the prelude set its compiles get (prelude_headers)
  const char* keyed_prelude;     // the largest set a compile may get: the compile cache keys on it
  const char* clang_language;    // libclang's -x when the device part of a file is parsed; "" for none
  const char* exact_float_option;  // turns off contraction (fused multiply-add) in a compile
  const char* resource_log_option;  // makes the compiler log its kernels' figures; "" for none
  ResourceFormat resources;
  bool cpu;             // kernels run on this machine's CPU: no device memory, host profiles, tier "small"
  bool sanitizer;       // compute-sanitizer can follow its workers (--sanitize)
  bool compiles_ahead;  // a run compiles upcoming kernels in processes of their own
  bool built;           // compiled into this binary: platform/backend_open.cpp opens it
};

// The rows, in the order --backend auto tries them (the host last).
const std::vector<BackendRow>& backend_table();
const BackendRow& backend_row(BackendId id);
// Throws std::invalid_argument naming the backends there are.
const BackendRow& backend_row(const std::string& name);
const BackendRow* find_backend(const std::string& name);  // nullptr when none has that name
// The GPU backend whose targets arch names ("gfx942" -> hip); nullptr for none.
const BackendRow* backend_for_arch(const std::string& arch);
// The GPU backend that compiles vendor's files ("hip" -> hip); nullptr for none.
const BackendRow* backend_for_source_vendor(const std::string& vendor);
const BackendRow* backend_for_compiler(const std::string& compiler);
const BackendRow& host_backend();  // the one that runs kernels on the CPU
// Whether backend `name` runs kernels on the CPU; false for a name no row has (a test double's).
bool on_cpu(const std::string& name);

// "cuda, hip, host": every backend's name (built or not), for help text and errors.
std::string backend_name_list();

}  // namespace hk
