// A worker reuses the memory its last case freed (no page faulted in again), and gives it back
// when it keeps more than it may. Each test runs in a child process of its own (EXPECT_EXIT), so
// the heap settings it changes stay there.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "worker/worker_heap.h"

namespace hk {
namespace {

constexpr size_t kBlock = size_t{256} << 20;

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Allocates a block, writes every byte of it, frees it; the minor faults that took.
long faults_of_one_block() {
  const long before = minor_faults();
  char* p = static_cast<char*>(std::malloc(kBlock));
  if (!p) std::_Exit(3);
  std::memset(p, 0x5a, kBlock);
  asm volatile("" : : "r"(p) : "memory");  // the writes stay
  std::free(p);
  return minor_faults() - before;
}

// Heap memory kept as a worker keeps it, with one block freed into it; the resident bytes then.
uint64_t resident_with_one_block_kept() {
  keep_freed_memory();
  faults_of_one_block();
  return resident_bytes();
}

TEST(WorkerHeap, TheNextCaseReusesWhatTheLastOneFreed) {
  EXPECT_EXIT(
      {
        keep_freed_memory();
        faults_of_one_block();
        // Faulted in afresh, even in huge pages of 2 MiB, the block would take 128 faults.
        std::_Exit(faults_of_one_block() < 16 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(WorkerHeap, WithoutItTheBlockIsFaultedInAgain) {  // the test above can tell the difference
  EXPECT_EXIT(
      {
        faults_of_one_block();
        std::_Exit(faults_of_one_block() >= 16 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(WorkerHeap, KeepsNoMoreThanItsShare) {
  EXPECT_EXIT(
      {
        const uint64_t kept = resident_with_one_block_kept();
        if (freed_memory_kept() < kBlock) std::_Exit(1);
        if (release_freed_memory_beyond(2 * kBlock, 0)) std::_Exit(2);  // within its share: kept
        if (resident_bytes() + kBlock / 2 < kept) std::_Exit(3);
        if (!release_freed_memory_beyond(kBlock / 4, 0)) std::_Exit(4);  // over it: given back
        if (resident_bytes() + kBlock / 2 > kept) std::_Exit(5);
        std::_Exit(freed_memory_kept() < kBlock / 4 ? 0 : 6);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(WorkerHeap, GivesItBackWhenTheMachineRunsShort) {
  EXPECT_EXIT(
      {
        const uint64_t kept = resident_with_one_block_kept();
        // No machine has this much available: the memory goes back although it is within its share.
        if (!release_freed_memory_beyond(uint64_t{1} << 50, uint64_t{1} << 60)) std::_Exit(1);
        std::_Exit(resident_bytes() + kBlock / 2 < kept ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace hk
