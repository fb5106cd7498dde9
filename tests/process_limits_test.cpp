// Process and memory limits of a run: --memory-limit's sizes, and the ending of what a kernel
// leaves running (orphans.h, process_tree.h).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "process/memory_limit.h"
#include "process/orphans.h"
#include "process/process_tree.h"

namespace hk {
namespace {

TEST(MemoryLimit, ReadsSizesWithUnits) {
  EXPECT_EQ(parse_memory_limit("4G"), int64_t{4} << 30);
  EXPECT_EQ(parse_memory_limit("512M"), int64_t{512} << 20);
  EXPECT_EQ(parse_memory_limit("512m"), int64_t{512} << 20);
  EXPECT_EQ(parse_memory_limit("1.5G"), int64_t{3} << 29);
  EXPECT_EQ(parse_memory_limit("64KiB"), int64_t{64} << 10);
  EXPECT_EQ(parse_memory_limit("2TB"), int64_t{2} << 40);
  EXPECT_EQ(parse_memory_limit("1048576"), int64_t{1} << 20);
  EXPECT_EQ(parse_memory_limit("0"), kMemoryLimitNone);
  EXPECT_EQ(parse_memory_limit("none"), kMemoryLimitNone);
  EXPECT_EQ(parse_memory_limit("auto"), kMemoryLimitAuto);
  for (const char* bad : {"4X", "-1", "", "G", "nan", "inf", " 4G", "4 G", "1e30"}) EXPECT_THROW(parse_memory_limit(bad), std::invalid_argument) << bad;
  for (int64_t v : {kMemoryLimitAuto, kMemoryLimitNone, int64_t{3} << 30}) EXPECT_EQ(parse_memory_limit(memory_limit_text(v)), v);
}

TEST(MemoryLimit, AutoIsTheMachinesShareWithAFloor) {
  const uint64_t total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(resolve_memory_limit(kMemoryLimitAuto, 1), std::max(total / 2, kMemoryLimitFloor));
  EXPECT_EQ(resolve_memory_limit(kMemoryLimitAuto, 1 << 20), std::max(total / 2, kMemoryLimitFloor));
  EXPECT_EQ(resolve_memory_limit(kMemoryLimitNone, 4), 0u);
  EXPECT_EQ(resolve_memory_limit(12345, 4), 12345u);
  EXPECT_EQ(bytes_text(uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(bytes_text(uint64_t{3} << 29), "1.5 GiB");
}

// Forks a child that runs body and exits 0 when it returns true; the test's process stays as it
// was (a subreaper is one for good).
bool in_child(bool (*body)()) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body() ? 0 : 1);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// A chain of `depth` processes, each the child of the one before in a session of its own, all
// sleeping; their pids are written to fd.
void chain(int depth, int fd) {
  if (depth == 0) return;
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    chain(depth - 1, fd);
    sleep(60);
    _exit(0);
  }
  (void)!write(fd, &pid, sizeof pid);
}

// Starts a 9-deep chain below this process and returns its pids once all are started.
std::vector<pid_t> start_chain() {
  int p[2];
  if (pipe(p) != 0) return {};
  if (fork() == 0) {  // the chain's head leaves: its members are orphans of this subreaper
    close(p[0]);
    chain(9, p[1]);
    _exit(0);
  }
  close(p[1]);
  std::vector<pid_t> pids;
  for (pid_t pid; pids.size() < 9 && read(p[0], &pid, sizeof pid) == sizeof pid;) pids.push_back(pid);
  close(p[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return pids;
}

bool all_gone(const std::vector<pid_t>& pids) {
  bool gone = pids.size() == 9;
  for (pid_t pid : pids) {
    if (kill(pid, 0) == 0) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
      FILE* f = fopen(path, "r");
      char buf[512] = {0};
      if (f) (void)!fread(buf, 1, sizeof buf - 1, f), fclose(f);
      const char* paren = strrchr(buf, ')');
      if (!paren || paren[2] != 'Z') gone = false, kill(pid, SIGKILL);  // not left for the next test
    }
  }
  return gone;
}

// hkcheck is the subreaper of its workers' leftovers; at the end of a run it ends them all,
// however deep the chain (five rounds of kills once left four of nine alive).
TEST(Orphans, EndsADeepSetsidChain) {
  EXPECT_TRUE(in_child([] {
    adopt_orphans();
    const std::vector<pid_t> pids = start_chain();
    const int ended = end_orphans();
    return all_gone(pids) && ended >= 9;
  }));
}

// A worker (a subreaper) ends what is below it: the parent's kill of a worker and the worker's
// own exit both go through end_descendants.
TEST(ProcessTree, EndsEveryDescendantOfASubreaper) {
  EXPECT_TRUE(in_child([] {
    adopt_orphans();
    const std::vector<pid_t> pids = start_chain();
    if (descendants(getpid()).size() < 9) return false;
    end_descendants(getpid(), std::chrono::seconds(2));
    return all_gone(pids) && descendants(getpid()).empty();
  }));
}

TEST(ProcessTree, CountsTheResidentMemoryOfDescendants) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const pid_t child = fork();
  if (child == 0) {
    const size_t n = size_t{256} << 20;
    char* block = static_cast<char*>(malloc(n));
    memset(block, 1, n);
    (void)!write(p[1], "x", 1);
    sleep(30);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(p[0], &c, 1), 1);
  const uint64_t held = tree_resident_bytes(getpid());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(p[0]), close(p[1]);
  EXPECT_GE(held, uint64_t{256} << 20);
}

// The memory of a child that writes 256 MiB into a memfd it holds open, mapped (mapped_too) or
// not: RssShmem counts only mapped pages, so an unmapped memfd was memory no limit saw.
uint64_t held_by_a_memfd_child(bool mapped_too) {
  int p[2];
  if (pipe(p) != 0) return 0;
  const pid_t child = fork();
  if (child == 0) {
    const size_t n = size_t{256} << 20;
    const int fd = memfd_create("hog", 0);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(n)) != 0) _exit(1);
    std::vector<char> chunk(1 << 20, 1);
    for (size_t done = 0; done < n; done += chunk.size()) (void)!write(fd, chunk.data(), chunk.size());
    void* map = mapped_too ? mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0) : nullptr;
    if (map) for (size_t i = 0; i < n; i += 4096) (void)*static_cast<volatile char*>(static_cast<char*>(map) + i);
    (void)!write(p[1], "x", 1);
    sleep(30);
    _exit(0);
  }
  char c;
  const bool ready = read(p[0], &c, 1) == 1;
  const uint64_t held = ready ? tree_resident_bytes(child) : 0;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(p[0]), close(p[1]);
  return held;
}

TEST(ProcessTree, CountsTheMemoryOfAMemfdOnceMappedOrNot) {
  const uint64_t unmapped = held_by_a_memfd_child(false), mapped = held_by_a_memfd_child(true);
  EXPECT_GE(unmapped, uint64_t{256} << 20) << "an unmapped memfd's pages";
  EXPECT_GE(mapped, uint64_t{256} << 20);
  EXPECT_LT(mapped, uint64_t{400} << 20) << "a mapped memfd is counted once, not by its mapping and its descriptor";
}

}  // namespace
}  // namespace hk
