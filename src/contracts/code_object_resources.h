// What a compiled kernel needs of the GPU, read from the compiled code itself, with no device:
// registers per thread, static shared memory (LDS), local/private memory per thread (stack and
// spills), and on AMD the AGPRs, SGPRs, wavefront size and the largest workgroup the code allows. NVIDIA: the
// CUBIN's .nv.info attributes and .nv.shared.<kernel> section; AMD: the code object's
// NT_AMDGPU_METADATA note (msgpack). Malformed input gives an error, never a crash.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/backend_table.h"

namespace hk {

struct KernelResources {
  // Per thread; -1 unknown. On AMD the code object's .vgpr_count: on gfx90a, gfx942 and gfx950
  // VGPRs and AGPRs share one 512-per-lane file and this is their sum (the VGPRs rounded up to 4,
  // then the AGPRs: measured, an MFMA kernel with 242 AGPRs has .vgpr_count 498).
  int64_t registers = -1;
  int64_t agprs = -1;                // AMD accumulation registers (.agpr_count), part of registers
  int64_t static_shared_bytes = -1;  // __shared__ / LDS the kernel declares
  int64_t local_bytes = -1;          // per thread: stack frame and spills (private segment on AMD)
  int64_t spilled = -1;              // bytes spilled (NVIDIA, from the compiler log) or registers spilled (AMD)
  int64_t sgprs = -1;                // AMD scalar registers
  int64_t wavefront = -1;            // AMD: 64 or 32
  int64_t max_threads_per_block = -1;  // the largest block the code allows (AMD max flat workgroup size)
  // The size of each of the kernel's own parameters, in order (AMD: the metadata's .args less the
  // hidden ones the runtime appends); empty when unknown.
  std::vector<int64_t> param_bytes;
};
void to_json(nlohmann::json& j, const KernelResources& r);
void from_json(const nlohmann::json& j, KernelResources& r);  // a missing figure stays -1

// symbol: the kernel's name in the binary (the lowered name of its entry). Both return nothing
// and set *why when the binary cannot be read or has no such kernel.
std::optional<KernelResources> cubin_resources(const std::string& cubin, const std::string& symbol, std::string* why);
std::optional<KernelResources> amdgpu_resources(const std::string& code_object, const std::string& symbol, std::string* why);

// The figures of symbol in binary as format reads them (platform/backend_table.h); nothing, with
// *why, for ResourceFormat::none.
std::optional<KernelResources> code_resources(ResourceFormat format, const std::string& binary, const std::string& symbol, std::string* why);

// NVRTC's log with -Xptxas -v: static shared memory and spills of symbol, where it says them
// ("N bytes smem", "N bytes spill stores"); fills what it finds into r.
void add_ptxas_figures(const std::string& log, const std::string& symbol, KernelResources& r);

}  // namespace hk
