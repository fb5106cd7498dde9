// The race detector's ordering rules, driven directly (no kernel): what orders two accesses and
// what does not (backends/host/race_detector.h).
#include "backends/host/race_detector.h"

#include <gtest/gtest.h>

namespace hk::host {
namespace {

constexpr int kWarp = 32;

struct Launch {
  alignas(16) float global[64] = {};
  alignas(16) float shared[64] = {};
  RaceDetector d;
  explicit Launch(unsigned blocks, unsigned threads = 64) {
    d.begin_launch({{reinterpret_cast<uintptr_t>(global), sizeof global, "global"}}, {blocks, 1, 1}, {threads, 1, 1}, kWarp);
  }
  void block(int64_t b) {
    d.begin_block(b, {static_cast<unsigned>(b), 0, 0}, {reinterpret_cast<uintptr_t>(shared), sizeof shared, "dynamic shared"}, {});
  }
  void write(int t, const float* p) { d.access(t, reinterpret_cast<uintptr_t>(p), 4, true, nullptr); }
  void read(int t, const float* p) { d.access(t, reinterpret_cast<uintptr_t>(p), 4, false, nullptr); }
};

TEST(RaceDetector, UnorderedWritesOfOneBlockRace) {
  Launch l(1);
  l.block(0);
  l.read(0, &l.global[0]);
  l.write(0, &l.global[0]);
  l.read(1, &l.global[0]);
  const auto r = l.d.take_report();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->memory, "global");
  EXPECT_EQ(r->offset, 0u);
  EXPECT_TRUE(r->earlier.write);
  EXPECT_FALSE(r->later.write);
  EXPECT_EQ(r->later.thread[0], 1u);
}

TEST(RaceDetector, BarrierOrdersThreadsOfABlock) {
  Launch l(1);
  l.block(0);
  l.write(5, &l.shared[5]);
  l.d.block_barrier();
  l.read(40, &l.shared[5]);
  l.write(40, &l.shared[5]);
  EXPECT_FALSE(l.d.take_report());
}

TEST(RaceDetector, WarpCollectiveOrdersLanesOfOneWarpOnly) {
  Launch l(1);
  l.block(0);
  l.write(3, &l.shared[3]);
  l.d.warp_barrier(0, 0xffffffffull);  // lanes 0-31
  l.read(4, &l.shared[3]);
  EXPECT_FALSE(l.d.take_report());
  l.read(33, &l.shared[3]);  // another warp: nothing orders it after the write
  const auto r = l.d.take_report();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->memory, "dynamic shared");
  EXPECT_EQ(r->offset, 12u);
}

TEST(RaceDetector, NeighbouringBytesDoNotRace) {
  Launch l(1);
  l.block(0);
  auto* bytes = reinterpret_cast<unsigned char*>(l.global);
  l.d.access(0, reinterpret_cast<uintptr_t>(bytes), 1, true, nullptr);
  l.d.access(1, reinterpret_cast<uintptr_t>(bytes + 1), 1, true, nullptr);
  l.d.access(2, reinterpret_cast<uintptr_t>(bytes + 2), 2, true, nullptr);
  EXPECT_FALSE(l.d.take_report());
}

// Block 0 writes its partial and counts itself in; block 1, counting last, reads it.
void last_block(Launch& l, bool fenced) {
  l.block(0);
  l.write(0, &l.global[0]);
  if (fenced) l.d.fence(0);
  l.d.atomic(0, reinterpret_cast<uintptr_t>(&l.global[63]));
  l.block(1);
  l.d.atomic(0, reinterpret_cast<uintptr_t>(&l.global[63]));
  l.d.block_barrier();
  l.read(7, &l.global[0]);
}

// Every thread of block 0 stores and fences, a barrier, then thread 0 alone counts the block in.
TEST(RaceDetector, FencesBeforeABarrierAreReleasedByAnyThreadsAtomic) {
  Launch l(2);
  l.block(0);
  l.write(9, &l.global[9]);
  l.d.fence(9);
  l.d.block_barrier();
  l.d.atomic(0, reinterpret_cast<uintptr_t>(&l.global[63]));
  l.block(1);
  l.d.atomic(0, reinterpret_cast<uintptr_t>(&l.global[63]));
  l.d.block_barrier();
  l.read(3, &l.global[9]);
  EXPECT_FALSE(l.d.take_report());
}

TEST(RaceDetector, FencedAtomicOrdersAcrossBlocks) {
  Launch l(2);
  last_block(l, true);
  EXPECT_FALSE(l.d.take_report());
}

TEST(RaceDetector, AtomicWithoutFenceOrdersNothing) {
  Launch l(2);
  last_block(l, false);
  const auto r = l.d.take_report();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->earlier.block[0], 0u);
  EXPECT_EQ(r->later.block[0], 1u);
  EXPECT_EQ(r->later.thread[0], 7u);
}

TEST(RaceDetector, EveryRacingPairIsCounted) {
  Launch l(2);
  for (int64_t b = 0; b < 2; ++b) {
    l.block(b);
    l.write(0, &l.global[1]);
  }
  l.write(1, &l.global[1]);
  const auto r = l.d.take_report();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pairs, 2);
}

TEST(RaceDetector, ALaunchStartsWithNoRecords) {
  Launch l(1);
  l.block(0);
  l.write(0, &l.global[2]);
  l.d.begin_launch({{reinterpret_cast<uintptr_t>(l.global), sizeof l.global, "global"}}, {1, 1, 1}, {64, 1, 1}, kWarp);
  l.block(0);
  l.write(1, &l.global[2]);
  EXPECT_FALSE(l.d.take_report());
}

}  // namespace
}  // namespace hk::host
