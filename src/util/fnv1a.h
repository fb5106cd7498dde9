// FNV-1a, 64 bits: a quick content hash for cache keys and integrity checks (not for security).
#pragma once

#include <cstdint>
#include <string>

namespace hk {

inline uint64_t fnv1a(const std::string& s, uint64_t h = 0xCBF29CE484222325ull) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

}  // namespace hk
