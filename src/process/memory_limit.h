// --memory-limit: how much memory the processes of one worker may hold (process_tree.h says what
// is counted). A worker over it is killed and its case is a CRASH with reason MEMORY_LIMIT.
#pragma once

#include <cstdint>
#include <string>

namespace hk {

constexpr int64_t kMemoryLimitAuto = -1;  // a share of the machine (resolve_memory_limit)
constexpr int64_t kMemoryLimitNone = 0;
constexpr uint64_t kMemoryLimitFloor = uint64_t{2} << 30;  // the least "auto" gives a worker

// "4G", "512M", "1.5G", "64K", "2T" (powers of 1024, an optional "B" or "iB" after the unit),
// a plain number of bytes, "0" or "none" (no limit), "auto". Throws std::invalid_argument.
int64_t parse_memory_limit(const std::string& text);

// As parse_memory_limit reads it back: "auto", "none", or a number of bytes.
std::string memory_limit_text(int64_t limit);

// This machine's physical memory in bytes; 0 when the system does not say.
uint64_t physical_memory();

// Bytes for each of `workers` workers running at once (0: no limit). "auto": half the machine's
// physical memory, at least kMemoryLimitFloor.
uint64_t resolve_memory_limit(int64_t limit, int workers);

// "1.5 GiB", "512 MiB", "300 KiB", "17 B".
std::string bytes_text(uint64_t bytes);

}  // namespace hk
