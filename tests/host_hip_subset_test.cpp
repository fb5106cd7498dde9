// Plain HIP on the host backend, as AMD kernel authors write it: <hip/hip_runtime.h>, mask-less
// warp functions, 64-bit ballots, __builtin_amdgcn_readfirstlane, HIP_DYNAMIC_SHARED and
// __hip_bfloat16; and a clear error for the AMD built-ins a CPU cannot run. Each for warp 32 and 64.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "model/dtype.h"
#include "host_subset_fixture.h"

namespace hk {
namespace {

struct HostHipSubset : HostSubset {};

TEST_P(HostHipSubset, WarpFunctionsBallotsFirstLaneSharedAndBf16) {
  const char* src = R"(#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
__global__ void __launch_bounds__(256) hip_subset(float* sums, unsigned long long* ballots, int* first,
                                                  __hip_bfloat16* doubled, const float* x) {
  HIP_DYNAMIC_SHARED(float, stage)
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = x[i];
  __syncthreads();
  float s = stage[(threadIdx.x + 1) % blockDim.x];  // a neighbour's value: the stage is shared
  for (int o = warpSize / 2; o > 0; o /= 2) s += __shfl_xor(s, o);
  const unsigned long long b = __ballot(x[i] > 0.f);
  const int warp = i / warpSize;
  if (__lane_id() == 0) sums[warp] = s, ballots[warp] = b;
  first[i] = __builtin_amdgcn_readfirstlane(i);
  doubled[i] = __float2bfloat16(x[i] * 2.f);
})";
  const int n = 512, warp = std::string(GetParam()) == "mi325x" ? 64 : 32, warps = n / warp;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i * 37) % 23) - 11.f + 1.f / 128;  // exact sums, both signs
  const uint64_t dx = upload(x), dsum = be->alloc(warps * 4), dball = be->alloc(warps * 8), dfirst = be->alloc(n * 4), dbf = be->alloc(n * 2);
  void* args[] = {const_cast<uint64_t*>(&dsum), const_cast<uint64_t*>(&dball), const_cast<uint64_t*>(&dfirst),
                  const_cast<uint64_t*>(&dbf), const_cast<uint64_t*>(&dx), nullptr};
  be->launch(kernel(src, "hip_subset"), {n / 256, 1, 1}, {256, 1, 1}, 256 * 4, args);
  be->synchronize();
  const auto sums = download<float>(dsum, warps);
  const auto ballots = download<unsigned long long>(dball, warps);
  const auto first = download<int>(dfirst, n);
  const auto doubled = download<uint16_t>(dbf, n);
  for (int w = 0; w < warps; ++w) {
    float want = 0;
    unsigned long long bits = 0;
    for (int l = 0; l < warp; ++l) {
      const int i = w * warp + l;
      want += x[(i % 256 + 1) % 256 + i / 256 * 256];
      if (x[i] > 0.f) bits |= 1ull << l;
    }
    EXPECT_EQ(sums[w], want) << "warp " << w;
    EXPECT_EQ(ballots[w], bits) << "warp " << w << ": a ballot has a bit for each of the " << warp << " lanes";
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(first[i], i / warp * warp) << i;
    EXPECT_EQ(decode_element(DType::bf16, reinterpret_cast<const uint8_t*>(doubled.data()), i), round_to_dtype(DType::bf16, 2.0 * x[i])) << i;
  }
}

TEST_P(HostHipSubset, AmdBuiltinsTheCpuCannotRunAreNamedOnTheirLine) {
  const CompileOutput m = be->compile({"#include <hip/hip_runtime.h>\n__global__ void k(float* p) {\n"
                                       "  p[0] = __builtin_amdgcn_mfma_f32_32x32x1f32(p[0], p[1], p[2], 0, 0, 0);\n}\n",
                                       "mfma.hip", {}, {"k"}});
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.log.find("mfma.hip:3"), std::string::npos) << m.log;
  EXPECT_NE(m.log.find("__builtin_amdgcn_mfma_f32_32x32x1f32 (a matrix-core instruction) cannot run on the hkcheck host backend"),
            std::string::npos) << m.log;
}

// hipCUB's block and warp collectives under their hipcub:: names; its warp collectives default to
// the hardware warp, 64 lanes under the mi325x profile.
TEST_P(HostHipSubset, HipcubBlockAndWarpCollectives) {
  const char* src = R"(#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>
__global__ void collectives(int* out, const int* x) {
  using Load = hipcub::BlockLoad<int, 128, 2, hipcub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = hipcub::BlockRadixSort<int, 128, 2>;
  using Reduce = hipcub::BlockReduce<int, 128>;
  using WarpSum = hipcub::WarpReduce<int>;
  using WarpPrefix = hipcub::WarpScan<int>;
  __shared__ typename Sort::TempStorage sort_storage;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ typename WarpSum::TempStorage warp_storage[4];
  __shared__ typename WarpPrefix::TempStorage prefix_storage[4];
  int items[2];
  Load().Load(x, items, 250, 1000);
  Sort(sort_storage).SortDescending(items);
  hipcub::StoreDirectBlocked(threadIdx.x, out, items);
  const int total = Reduce(reduce_storage).Reduce(items[0] + items[1], hipcub::Sum());
  const int warp = threadIdx.x / warpSize;
  const int lanes_sum = WarpSum(warp_storage[warp]).Sum(1);
  int prefix;
  WarpPrefix(prefix_storage[warp]).ExclusiveSum(1, prefix);
  if (threadIdx.x == 0) out[256] = total, out[257] = lanes_sum;
  out[258 + threadIdx.x] = prefix;
})";
  const int warp = std::string(GetParam()) == "mi325x" ? 64 : 32;
  std::vector<int> x(256);
  for (int i = 0; i < 256; ++i) x[i] = (i * 71) % 97 - 40;
  const uint64_t dx = upload(x), dout = be->alloc((258 + 128) * 4);
  void* args[] = {const_cast<uint64_t*>(&dout), const_cast<uint64_t*>(&dx), nullptr};
  be->launch(kernel(src, "collectives"), {1, 1, 1}, {128, 1, 1}, 0, args);
  be->synchronize();
  const auto out = download<int>(dout, 258 + 128);
  std::vector<int> want(x.begin(), x.begin() + 250);
  want.resize(256, 1000);  // the guarded load's default past item 250
  std::sort(want.rbegin(), want.rend());
  int total = 0;
  for (int v : want) total += v;
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 256), want);
  EXPECT_EQ(out[256], total);
  EXPECT_EQ(out[257], warp) << "hipcub::WarpReduce spans the hardware warp by default";
  for (int t = 0; t < 128; ++t) EXPECT_EQ(out[258 + t], t % warp) << t;
}

INSTANTIATE_TEST_SUITE_P(Profiles, HostHipSubset, ::testing::Values("h100", "mi325x"));

}  // namespace
}  // namespace hk
