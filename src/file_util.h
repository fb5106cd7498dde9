// Small file helpers.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>

namespace hk {

// A name beside path for a file that is renamed to path once complete, unique to the calling
// process and thread, so that concurrent writers never share one.
std::string temporary_beside(const std::string& path);

// Writes content to path through a temporary file in the same folder and a rename, so a reader
// (or a crash midway) never sees a half-written file. mode: the file's exact permissions (a copy
// keeps its source's), else 0644 less the umask. Returns false and sets *err on failure.
bool write_file_atomic(const std::string& path, const std::string& content, std::string* err,
                       std::optional<mode_t> mode = std::nullopt);

// The permission bits of a file (07777 at most), or nullopt when it cannot be stat'ed.
std::optional<mode_t> file_mode(const std::string& path);

// The whole file; throws std::runtime_error naming what (e.g. "kernel source") and the path.
std::string read_file(const std::string& path, const std::string& what = "file");

}  // namespace hk
