// What a folder's headers are now, in one hash: a reference library is built under the hash of
// the reference runtime's folder, and a compile whose includes cannot all be followed
// (include_closure.h) reads every header of its search folders.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hk {

// The header-like files (.h .hpp .hh .cuh .hip .inc .inl .cu .cpp .cc) under dir, recursively, sorted.
std::vector<std::filesystem::path> header_files(const std::string& dir);

// Hash of the names (relative to the folder) and contents of header_files(dir): where the folder
// lies does not count. Beyond kMaxFingerprintFiles files or bytes, the rest count by name, size
// and modification time only.
std::string fingerprint_folder(const std::string& dir);

inline constexpr size_t kMaxFingerprintFiles = 4096;
inline constexpr size_t kMaxFingerprintBytes = size_t{64} << 20;

}  // namespace hk
