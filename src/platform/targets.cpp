#include "platform/targets.h"

#include <algorithm>

namespace hk {

const std::vector<Target>& targets() {
  // NVIDIA: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
  // (shared memory per block 48 KiB by default; opt-in 163 KiB on 8.0, 227 KiB on 9.0 and 10.0;
  // 64 Ki 32-bit registers per block, 255 per thread). The H100's own report matches (227 KiB =
  // 232448 bytes, results/h100). AMD: the CDNA2/CDNA3/CDNA4 ISA guides (64 KiB of LDS per
  // workgroup on CDNA2 and CDNA3, 160 KiB on CDNA4; 512 VGPRs per lane, AGPRs included).
  static const std::vector<Target> t = {
      {"sm_80", BackendId::cuda, "NVIDIA A100", 32, 49152, 166912, 255, 1024},
      {"sm_90", BackendId::cuda, "NVIDIA H100 / H200", 32, 49152, 232448, 255, 1024},
      {"sm_100", BackendId::cuda, "NVIDIA B200", 32, 49152, 232448, 255, 1024},
      {"gfx90a", BackendId::hip, "AMD Instinct MI200 (CDNA2)", 64, 65536, 65536, 512, 1024},
      {"gfx942", BackendId::hip, "AMD Instinct MI300 / MI325X (CDNA3)", 64, 65536, 65536, 512, 1024},
      // gfx950: wavefront 64 and 160 KiB of LDS (the MI355X row of ROCm's "GPU hardware
      // specifications" table, which gives 64 KiB for gfx942); all of it to one workgroup, 163840
      // bytes (LLVM's AMDGPU backend refuses a gfx950 kernel with more: "local memory (...)
      // exceeds limit (163840)"). 512 VGPRs per lane, AGPRs included: that table's VGPR file,
      // 512 KiB per CU = 4 SIMDs x 512 registers x 64 lanes x 4 bytes, as on gfx942. 1024
      // work-items per workgroup, the AMDGPU backend's largest flat workgroup size.
      {"gfx950", BackendId::hip, "AMD Instinct MI355X (CDNA4)", 64, 163840, 163840, 512, 1024},
  };
  return t;
}

const Target* find_target(const std::string& arch) {
  for (const Target& t : targets())
    if (t.arch == arch) return &t;
  return nullptr;
}

int64_t max_threads_for_registers(const Target& t, int64_t registers) {
  if (registers <= 0) return t.max_threads_per_block;
  if (t.backend == BackendId::cuda) {
    const int64_t per_warp = (registers * 32 + 255) / 256 * 256;
    return std::min(t.max_threads_per_block, 65536 / per_warp * 32);
  }
  const int64_t per_lane = (registers + 7) / 8 * 8;
  return std::min(t.max_threads_per_block, 512 / per_lane * 4 * t.warp_size);
}

}  // namespace hk
