// The seal of a file hkcheck keeps in its cache (a reference library, the object every reference
// library links, a precompiled header): its size and content hash, written beside it when it is
// made and checked before it is used. A file torn by a full disk or a killed writer, truncated,
// edited, or left from another build is then made again instead of being loaded (a truncated
// shared library is a SIGBUS in whoever maps it) or trusted.
//
// What it does not do: anyone who can write the cache can write the seal too. The hash (64 bits,
// not cryptographic) guards against accidents and stale files, not against a hostile user of
// this machine; keep the cache folder private to you (docs/host_backend.md, "Caches").
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hk {

struct Seal {
  std::string entry;  // the file's name: a file and its seal copied to another entry's name are not that entry
  uint64_t size = 0;
  uint64_t hash = 0;  // of the bytes (cache_seal.cpp: content_hash)
};
void to_json(nlohmann::json& j, const Seal& s);
void from_json(const nlohmann::json& j, Seal& s);

Seal seal_of(const std::string& entry, const std::string& bytes);

// 64 bits of bytes, quick (32 bytes a step): finds accidents, not a cryptographic hash.
uint64_t bytes_hash(const std::string& bytes);
uint64_t bytes_hash(const void* data, size_t n);

// The seal kept beside file, unchecked (read_sealed checks it against the file); nothing when
// it is missing or unreadable.
std::optional<Seal> read_seal(const std::string& file);

// Where the seal of file is kept: file + ".seal".
std::string seal_path(const std::string& file);

// Seals the bytes of content_file (a file about to be renamed to sealed_file) as sealed_file's.
// False with *err when content_file cannot be read or the seal cannot be written.
bool write_seal(const std::string& content_file, const std::string& sealed_file, std::string* err);

// "" when file exists and matches its seal; else why not, for a note ("it has no readable seal",
// "1200 bytes where its seal says 52344", "its content differs from its seal", "its seal is
// for another entry").
std::string seal_mismatch(const std::string& file);

// The bytes of file when they match its seal (read, never mapped); else nothing, and *why.
std::optional<std::string> read_sealed(const std::string& file, std::string* why);

// Removes file and its seal (a damaged entry, before it is made again).
void remove_sealed(const std::string& file);

// Held while a process checks, makes and seals one cache entry (flock on path + ".lock"): two
// processes that find it missing or damaged at once make it one after the other, the second
// finding it made, instead of both writing it and one's seal ending beside the other's file.
// Taking it waits; when the lock file cannot be made, nothing is held and the work goes on.
class CacheEntryLock {
 public:
  explicit CacheEntryLock(const std::string& path);
  ~CacheEntryLock();
  CacheEntryLock(const CacheEntryLock&) = delete;
  CacheEntryLock& operator=(const CacheEntryLock&) = delete;

 private:
  int fd_ = -1;
};

// For a cache entry whose content is known (a header copied into the cache): true when path now
// holds exactly text, written if it was missing; one found with other content is rewritten and
// said in *note.
bool restore_cached_text(const std::string& path, const std::string& text, std::string* note);

// Damaged cache entries this process found and made again, for the results to say: the parent's
// reference build and a worker's compile add to it, and the case or run that follows takes them.
void note_cache_repair(const std::string& what);
std::vector<std::string> take_cache_repairs();

}  // namespace hk
