// What a kernel's headers are now, in one hash: a compiled kernel is cached under it, so that an
// edited header beside the kernel or in a manifest's include folder is compiled again instead of
// serving the old binary.
#pragma once

#include <string>
#include <vector>

namespace hk {

// Hash of the names (relative to their folder) and contents of the header-like files (.h .hpp
// .cuh .hip .inc .inl .cu) under each folder, recursively: where the folder lies does not count.
// Beyond kMaxFingerprintFiles files or bytes in all, the rest count by name, size and
// modification time only. Remembered per folder for the life of the process.
std::string header_fingerprint(const std::vector<std::string>& dirs);

// The hash of one folder as it is now (header_fingerprint remembers these).
std::string fingerprint_folder(const std::string& dir);

inline constexpr size_t kMaxFingerprintFiles = 4096;
inline constexpr size_t kMaxFingerprintBytes = size_t{64} << 20;

}  // namespace hk
