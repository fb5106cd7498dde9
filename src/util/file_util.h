// Small file helpers.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hk {

// A name beside path for a file that is renamed to path once complete, unique to the calling
// process and thread, so that concurrent writers never share one.
std::string temporary_beside(const std::string& path);

// Writes content to path through a temporary file in the same folder and a rename, so a reader
// (or a crash midway) never sees a half-written file. A symbolic link at path is replaced, never
// followed, and so is one at the temporary's name. mode: the file's exact permissions (a copy
// keeps its source's), else 0644 less the umask. Returns false and sets *err on failure.
bool write_file_atomic(const std::string& path, const std::string& content, std::string* err,
                       std::optional<mode_t> mode = std::nullopt);
// The same, throwing std::runtime_error with *err's text on failure.
void write_file_atomic_or_throw(const std::string& path, const std::string& content, std::optional<mode_t> mode = std::nullopt);

// open(2) of a file inside a results folder, never through a symbolic link, a hard link to a file
// elsewhere, or a FIFO (which would hang the open): with replace_link, such a thing at path is
// removed (not what it points at), *note says so, and the file is made anew; without, the open
// fails with ELOOP. Returns the descriptor or -1 with errno set.
int open_no_follow(const std::string& path, int flags, mode_t mode, bool replace_link, std::string* note);

// The permission bits of a file (07777 at most), or nullopt when it cannot be stat'ed.
std::optional<mode_t> file_mode(const std::string& path);

// Makes root/rel a folder, where rel is a relative path inside root (a run's results folder):
// root itself may be a link, but no component of rel is followed. A symbolic link found in the
// way is removed (not what it points at) and a folder made in its place; *replaced gets a line
// for each. Anything else in the way (a file) is an error. Returns false with *err.
bool make_folder_inside(const std::string& root, const std::string& rel, std::string* err, std::vector<std::string>* replaced);

// Removes root/rel whatever it is (a folder with all it holds, a file, a symbolic link: never what
// a link points at). A symbolic link among its parents is removed as make_folder_inside does, so
// nothing outside root is reached through one. Returns false with *err.
bool remove_inside(const std::string& root, const std::string& rel, std::string* err, std::vector<std::string>* replaced);

// The whole file; throws std::runtime_error naming what (e.g. "kernel source") and the path.
std::string read_file(const std::string& path, const std::string& what = "file");

}  // namespace hk
