// Plain CUDA on the host backend, as kernels use it every day: bf16/half conversions exact to
// the bit, vector types laid out as CUDA lays them out, float atomics, block votes, extern
// __shared__ at function and namespace scope, cooperative groups; and a clear error for what
// the CPU cannot run. Each for warp 32 and 64.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "model/dtype.h"
#include "host_subset_fixture.h"

namespace hk {
namespace {

// Every float whose bits are a 16-bit value and the midpoints between neighbours, converted on
// the "device" and compared with hkcheck's own rounding.
TEST_P(HostSubset, Bf16AndHalfRoundToNearestEvenExactly) {
  const char* src = R"(#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void convert(float* bf, float* hf, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // Through the pair conversions too: element .x must round as the single conversions do.
    bf[i] = __bfloat1622float2(__float22bfloat162_rn(make_float2(x[i], 0.f))).x;
    hf[i] = __half22float2(__float22half2_rn(make_float2(x[i], 0.f))).x;
    if (bf[i] != __bfloat162float(__float2bfloat16(x[i])) && !(bf[i] != bf[i])) bf[i] = -1.f;
    if (hf[i] != __half2float(__float2half_rn(x[i])) && !(hf[i] != hf[i])) hf[i] = -1.f;
  }
})";
  std::vector<float> x;
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint32_t bits = b << 16;
    float f, mid;
    std::memcpy(&f, &bits, 4);
    const uint32_t m = bits | 0x8000u;
    std::memcpy(&mid, &m, 4);
    x.push_back(f);
    x.push_back(mid);
    x.push_back(std::ldexp(static_cast<float>(b), -14) * (b % 2 ? -1.f : 1.f));  // the f16 range, halfway points included
  }
  int n = static_cast<int>(x.size());
  const uint64_t dx = upload(x), dbf = be->alloc(n * 4), dhf = be->alloc(n * 4);
  void* args[] = {const_cast<uint64_t*>(&dbf), const_cast<uint64_t*>(&dhf), const_cast<uint64_t*>(&dx), &n, nullptr};
  be->launch(kernel(src, "convert"), {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, args);
  be->synchronize();
  const auto bf = download<float>(dbf, n), hf = download<float>(dhf, n);
  int wrong = 0;
  for (int i = 0; i < n && wrong < 5; ++i) {
    const double want_bf = round_to_dtype(DType::bf16, x[i]), want_hf = round_to_dtype(DType::f16, x[i]);
    const bool ok_bf = std::isnan(want_bf) ? std::isnan(bf[i]) : bf[i] == want_bf;
    const bool ok_hf = std::isnan(want_hf) ? std::isnan(hf[i]) : hf[i] == want_hf;
    if (!ok_bf || !ok_hf) {
      ++wrong;
      ADD_FAILURE() << "x=" << x[i] << " bf16 " << bf[i] << " want " << want_bf << ", f16 " << hf[i] << " want " << want_hf;
    }
  }
}

TEST_P(HostSubset, VectorTypesAtomicsVotesAndExternShared) {
  const char* src = R"(#include <cuda_runtime.h>
extern __shared__ __align__(16) float whole_file_shared[];
template <int Block>
__global__ void __launch_bounds__(Block) mix(float* sums, int* counts, float4* copy, const float4* x, int n4) {
  extern __shared__ float4 tile[];
  const int i = blockIdx.x * Block + threadIdx.x;
  const float4 v = i < n4 ? __ldg(&x[i]) : make_float4(0.f, 0.f, 0.f, 0.f);
  tile[threadIdx.x] = v;
  __syncthreads();
  if (i < n4) copy[i] = tile[threadIdx.x];
  atomicAdd(&sums[0], v.x + v.y + v.z + v.w);
  atomicAdd(&sums[1], 1);  // an int literal into a float: the value follows the pointer
  const int positive = __syncthreads_count(v.x > 0.f);
  if (threadIdx.x == 0) {
    atomicAdd(&counts[0], positive);
    whole_file_shared[0] = 1.f;
    atomicMax(&counts[1], (int)whole_file_shared[0] + (int)(alignof(float4) + sizeof(float3) + sizeof(int2)));
  }
})";
  const int n4 = 1000, block = 128, blocks = (n4 + block - 1) / block;
  std::vector<float> x(4 * n4);
  double total = 0;
  int positive = 0;
  for (int i = 0; i < 4 * n4; ++i) {
    x[i] = static_cast<float>((i * 37) % 101 - 50) / 4.f;
    total += x[i];
    if (i % 4 == 0 && x[i] > 0) ++positive;
  }
  const uint64_t dx = upload(x), dcopy = be->alloc(x.size() * 4), dsums = upload(std::vector<float>{0.5f, 0.f}),
                 dcounts = upload(std::vector<int>{0, 0});
  int n = n4;
  void* args[] = {const_cast<uint64_t*>(&dsums), const_cast<uint64_t*>(&dcounts), const_cast<uint64_t*>(&dcopy),
                  const_cast<uint64_t*>(&dx), &n, nullptr};
  be->launch(kernel(src, "mix<128>"), {blocks, 1, 1}, {block, 1, 1}, block * 16, args);
  be->synchronize();
  EXPECT_EQ(download<float>(dcopy, x.size()), x);
  const auto sums = download<float>(dsums, 2);
  EXPECT_NEAR(sums[0], 0.5 + total, 1e-2);
  EXPECT_EQ(sums[1], static_cast<float>(blocks * block));
  const auto counts = download<int>(dcounts, 2);
  EXPECT_EQ(counts[0], positive);
  EXPECT_EQ(counts[1], 1 + 16 + 12 + 8) << "CUDA's alignment and sizes of float4, float3, int2";
}

TEST_P(HostSubset, CooperativeGroupsTilesReduceAndVote) {
  const char* src = R"(#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void tiles(float* sums, int* ballots, const float* x) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const float v = x[block.thread_rank()];
  const float s = cg::reduce(tile, v, cg::plus<float>());
  const float m = cg::reduce(tile, v, cg::greater<float>());
  const int bits = (int)tile.ballot(v > 0.f);  // every thread of the tile votes
  if (tile.thread_rank() == 0) {
    sums[2 * tile.meta_group_rank()] = s;
    sums[2 * tile.meta_group_rank() + 1] = m;
    ballots[tile.meta_group_rank()] = bits;
  }
  block.sync();
})";
  std::vector<float> x(128);
  for (int i = 0; i < 128; ++i) x[i] = static_cast<float>((i * 53) % 29 - 14);
  const uint64_t dx = upload(x), dsums = be->alloc(16 * 4), dballots = be->alloc(8 * 4);
  void* args[] = {const_cast<uint64_t*>(&dsums), const_cast<uint64_t*>(&dballots), const_cast<uint64_t*>(&dx), nullptr};
  be->launch(kernel(src, "tiles"), {1, 1, 1}, {128, 1, 1}, 0, args);
  be->synchronize();
  const auto sums = download<float>(dsums, 16);
  const auto ballots = download<int>(dballots, 8);
  for (int t = 0; t < 8; ++t) {
    float s = 0, m = -1e30f;
    int bits = 0;
    for (int j = 0; j < 16; ++j) {
      s += x[16 * t + j];
      m = std::max(m, x[16 * t + j]);
      bits |= (x[16 * t + j] > 0) << j;
    }
    EXPECT_EQ(sums[2 * t], s) << "tile " << t;
    EXPECT_EQ(sums[2 * t + 1], m) << "tile " << t;
    EXPECT_EQ(ballots[t], bits) << "tile " << t;
  }
}

// Cooperative groups shuffle any trivially copyable type, 8 bytes at a time: a 16-byte float4
// and a 12-byte struct come back whole from the lane they were read from.
TEST_P(HostSubset, CooperativeGroupsShuffleValuesWiderThanEightBytes) {
  const char* src = R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct three { int a, b, c; };
__global__ void wide(float4* out4, three* out3) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int r = (int)cg::this_thread_block().thread_rank();
  const float4 mine = make_float4(r, r + 0.25f, r + 0.5f, r + 0.75f);
  const three t{r, -r, 3 * r};
  out4[r] = tile.shfl_xor(mine, 1);
  out3[r] = tile.shfl(t, 15);
})";
  const uint64_t d4 = be->alloc(32 * 16), d3 = be->alloc(32 * 12);
  void* args[] = {const_cast<uint64_t*>(&d4), const_cast<uint64_t*>(&d3), nullptr};
  be->launch(kernel(src, "wide"), {1, 1, 1}, {32, 1, 1}, 0, args);
  be->synchronize();
  const auto f = download<float>(d4, 32 * 4);
  const auto t = download<int>(d3, 32 * 3);
  for (int r = 0; r < 32; ++r) {
    const int from = r ^ 1, last = r / 16 * 16 + 15;
    for (int i = 0; i < 4; ++i) EXPECT_EQ(f[4 * r + i], from + 0.25f * i) << "lane " << r << " float " << i;
    EXPECT_EQ(t[3 * r], last) << r;
    EXPECT_EQ(t[3 * r + 1], -last) << r;
    EXPECT_EQ(t[3 * r + 2], 3 * last) << r;
  }
}

TEST_P(HostSubset, WhatTheCpuCannotRunIsNamedOnItsLine) {
  const CompileOutput a = be->compile({"__global__ void k(int* p) {\n  asm volatile(\"membar.gl;\");\n}\n", "asm.cu", {}, {"k"}});
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.log.find("asm.cu:2"), std::string::npos) << a.log;
  EXPECT_NE(a.log.find("inline assembly (`membar.gl`) cannot run on the hkcheck host backend"), std::string::npos) << a.log;
  const CompileOutput c = be->compile({"#include <cub/cub.cuh>\n__global__ void k(int* p) {\n"
                                       "  typename cub::BlockExchange<int, 64, 2>::TempStorage t;\n}\n", "cub.cu", {}, {"k"}});
  EXPECT_FALSE(c.ok) << "BlockExchange is not among the host's cub collectives";
  EXPECT_NE(c.log.find("cub.cu:3"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("BlockExchange"), std::string::npos) << c.log;
}

// cub's block reduce and scan and its warp reduce, as kernels write them: one TempStorage in
// shared memory per block (per logical warp), used twice in a row.
TEST_P(HostSubset, CubBlockReduceScanAndWarpReduce) {
  const char* src = R"(#include <cub/cub.cuh>
__global__ void collectives(int* out, const int* x) {
  using Reduce = cub::BlockReduce<int, 128>;
  using Scan = cub::BlockScan<int, 128>;
  using Warp = cub::WarpReduce<int, 16>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ typename Warp::TempStorage warp_storage[8];
  const int t = threadIdx.x, v = x[t];
  const int sum = Reduce(reduce_storage).Sum(v);
  const int top = Reduce(reduce_storage).Reduce(v, cub::Max(), 100);  // the first 100 threads only
  int inclusive, exclusive, total, pair[2] = {v, 1};
  Scan(scan_storage).InclusiveSum(v, inclusive);
  Scan(scan_storage).ExclusiveSum(v, exclusive, total);
  Scan(scan_storage).ExclusiveSum(pair, pair);  // in place, as cub allows
  const int warp_sum = Warp(warp_storage[t / 16]).Sum(v);
  if (t == 0) out[0] = sum, out[1] = top, out[2] = total;
  out[8 + t] = inclusive;
  out[136 + t] = exclusive;
  out[264 + t] = pair[0] * 1000 + pair[1];
  if (t % 16 == 0) out[392 + t / 16] = warp_sum;
})";
  std::vector<int> x(128);
  for (int i = 0; i < 128; ++i) x[i] = (i * 37) % 23 - 11 + (i == 50 ? 40 : 0) + (i == 120 ? 90 : 0);
  const uint64_t dx = upload(x), dout = be->alloc(400 * 4);
  void* args[] = {const_cast<uint64_t*>(&dout), const_cast<uint64_t*>(&dx), nullptr};
  be->launch(kernel(src, "collectives"), {1, 1, 1}, {128, 1, 1}, 0, args);
  be->synchronize();
  const auto out = download<int>(dout, 400);
  int sum = 0, top = x[0];
  for (int i = 0; i < 128; ++i) sum += x[i];
  for (int i = 0; i < 100; ++i) top = std::max(top, x[i]);
  EXPECT_EQ(out[0], sum);
  EXPECT_EQ(out[1], top) << "thread 120's larger value is past num_valid";
  EXPECT_EQ(out[2], sum);
  int running = 0;
  for (int i = 0; i < 128; ++i) {
    EXPECT_EQ(out[136 + i], running) << "exclusive " << i;
    EXPECT_EQ(out[264 + i], (running + i) * 1000 + running + i + x[i]) << "two items per thread " << i;
    running += x[i];
    EXPECT_EQ(out[8 + i], running) << "inclusive " << i;
  }
  for (int w = 0; w < 8; ++w) {
    int s = 0;
    for (int j = 0; j < 16; ++j) s += x[16 * w + j];
    EXPECT_EQ(out[392 + w], s) << "logical warp " << w;
  }
}

// cub's radix sort on what its documentation singles out: -0.0 and +0.0 are one key and keep
// their order, negative floats sort below positive ones, equal keys keep their values' order, and
// a sort by bits [begin_bit, end_bit) looks at those bits only.
TEST_P(HostSubset, CubRadixSortSpecialCases) {
  const char* src = R"(#include <cub/block/block_radix_sort.cuh>
__global__ void sorts(float* keys_out, int* values_out, unsigned* low_out, const float* keys_in, const unsigned* low_in) {
  float keys[2] = {keys_in[2 * threadIdx.x], keys_in[2 * threadIdx.x + 1]};
  int values[2] = {int(2 * threadIdx.x), int(2 * threadIdx.x + 1)};
  cub::BlockRadixSort<float, 4, 2, int>().Sort(keys, values);
  unsigned low[2] = {low_in[2 * threadIdx.x], low_in[2 * threadIdx.x + 1]};
  cub::BlockRadixSort<unsigned, 4, 2>().SortDescending(low, 4, 8);
  for (int i = 0; i < 2; ++i) {
    keys_out[2 * threadIdx.x + i] = keys[i];
    values_out[2 * threadIdx.x + i] = values[i];
    low_out[2 * threadIdx.x + i] = low[i];
  }
})";
  const std::vector<float> keys = {0.f, -0.f, -2.5f, 1.f, 0.f, -1e30f, 1.f, -0.f};
  const std::vector<unsigned> low = {0x10, 0x2f0, 0x31, 0x1f0, 0x50, 0x20, 0xa0, 0x3ff};
  const uint64_t dk = upload(keys), dl = upload(low), dko = be->alloc(32), dvo = be->alloc(32), dlo = be->alloc(32);
  void* args[] = {const_cast<uint64_t*>(&dko), const_cast<uint64_t*>(&dvo), const_cast<uint64_t*>(&dlo), const_cast<uint64_t*>(&dk),
                  const_cast<uint64_t*>(&dl), nullptr};
  be->launch(kernel(src, "sorts"), {1, 1, 1}, {4, 1, 1}, 0, args);
  be->synchronize();
  const auto ko = download<float>(dko, 8);
  const auto vo = download<int>(dvo, 8);
  const auto lo = download<unsigned>(dlo, 8);
  EXPECT_EQ(vo, (std::vector<int>{5, 2, 0, 1, 4, 7, 3, 6})) << "stable, -0.0 equal to +0.0";
  for (int i = 0; i < 8; ++i) EXPECT_EQ(ko[i], keys[vo[i]]) << i;
  // Bits 4..7, descending: 0xf (0x2f0, 0x1f0, 0x3ff in input order), 0xa, 0x5, 0x3, 0x2, 0x1.
  EXPECT_EQ(lo, (std::vector<unsigned>{0x2f0, 0x1f0, 0x3ff, 0xa0, 0x50, 0x31, 0x20, 0x10}));
}

INSTANTIATE_TEST_SUITE_P(Profiles, HostSubset, ::testing::Values("h100", "mi325x"));

}  // namespace
}  // namespace hk
