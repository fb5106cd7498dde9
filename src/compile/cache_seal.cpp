#include "compile/cache_seal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <nlohmann/json.hpp>

#include "util/file_util.h"
#include "process/lock_wait.h"
#include "util/fnv1a.h"

namespace hk {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSchema = "hkcheck-seal";
constexpr int kVersion = 1;

std::optional<std::string> read_bytes(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

uint64_t rotate(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// 64 bits of the bytes, 32 a step in four independent lanes: a precompiled header is megabytes,
// and every worker checks it (FNV-1a, a byte a step, took 57 ms for 15 MB; this 10 ms). It finds
// accidents; it is not a cryptographic hash.
uint64_t content_hash(const char* bytes, size_t n) {
  uint64_t lane[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0xD6E8FEB86659FD93ull};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t word;
      std::memcpy(&word, bytes + i + 8 * k, 8);
      lane[k] = rotate(lane[k] ^ (word * 0xFF51AFD7ED558CCDull), 29) * 0xC4CEB9FE1A85EC53ull;
    }
  uint64_t h = 0xCBF29CE484222325ull ^ n;  // the tail (FNV-1a), and the length
  for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(bytes[i])) * 0x100000001B3ull;
  for (const uint64_t l : lane) h = rotate(h ^ l, 27) * 0x9E3779B97F4A7C15ull;
  return h;
}
uint64_t content_hash(const std::string& bytes) { return content_hash(bytes.data(), bytes.size()); }

std::optional<Seal> read_seal_file(const std::string& file) {
  const auto text = read_bytes(seal_path(file));
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text).get<Seal>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::mutex g_repairs_mutex;
std::vector<std::string> g_repairs;

}  // namespace

void to_json(nlohmann::json& j, const Seal& s) {
  j = {{"schema", kSchema}, {"schema_version", kVersion}, {"entry", s.entry}, {"size", s.size}, {"hash64", fmt::format("{:016x}", s.hash)}};
}

void from_json(const nlohmann::json& j, Seal& s) {
  if (j.at("schema").get<std::string>() != kSchema || j.at("schema_version").get<int>() != kVersion)
    throw nlohmann::json::other_error::create(501, "not a seal of this version", &j);
  s.entry = j.at("entry").get<std::string>();
  s.size = j.at("size").get<uint64_t>();
  const std::string hex = j.at("hash64").get<std::string>();
  size_t used = 0;
  try {
    s.hash = std::stoull(hex, &used, 16);
  } catch (const std::exception&) {
    used = 0;
  }
  if (hex.size() != 16 || used != hex.size()) throw nlohmann::json::other_error::create(501, "hash64 is not 16 hex digits", &j);
}

std::optional<Seal> read_seal(const std::string& file) { return read_seal_file(file); }

uint64_t bytes_hash(const std::string& bytes) { return content_hash(bytes); }
uint64_t bytes_hash(const void* data, size_t n) { return content_hash(static_cast<const char*>(data), n); }

Seal seal_of(const std::string& entry, const std::string& bytes) { return Seal{entry, bytes.size(), content_hash(bytes)}; }

std::string seal_path(const std::string& file) { return file + ".seal"; }

bool write_seal(const std::string& content_file, const std::string& sealed_file, std::string* err) {
  const auto bytes = read_bytes(content_file);
  if (!bytes) {
    if (err) *err = "cannot read " + content_file + " to seal it";
    return false;
  }
  const Seal seal = seal_of(fs::path(sealed_file).filename().string(), *bytes);
  return write_file_atomic(seal_path(sealed_file), nlohmann::json(seal).dump() + "\n", err);
}

std::string seal_mismatch(const std::string& file) {
  std::string why;
  return read_sealed(file, &why) ? "" : why;
}

std::optional<std::string> read_sealed(const std::string& file, std::string* why) {
  const std::optional<Seal> seal = read_seal_file(file);
  if (!seal) {
    *why = "it has no readable seal, " + seal_path(file) + " (made by an older hkcheck, or the seal was lost)";
    return std::nullopt;
  }
  if (seal->entry != fs::path(file).filename().string()) {
    *why = "its seal is for another entry, " + seal->entry;
    return std::nullopt;
  }
  // The size first, from the folder: a file replaced by a device or a huge one is not read.
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    *why = "it is missing or not a regular file";
    return std::nullopt;
  }
  if (const uintmax_t size = fs::file_size(file, ec); ec || size != seal->size) {
    *why = ec ? "its size cannot be read" : fmt::format("{} bytes where its seal says {}", size, seal->size);
    return std::nullopt;
  }
  auto bytes = read_bytes(file);
  if (!bytes || bytes->size() != seal->size) {
    *why = bytes ? "it changed while it was read" : "it cannot be read";
    return std::nullopt;
  }
  if (content_hash(*bytes) != seal->hash) {
    *why = "its content differs from its seal";
    return std::nullopt;
  }
  return bytes;
}

void remove_sealed(const std::string& file) {
  std::error_code ec;
  fs::remove(file, ec);
  fs::remove(seal_path(file), ec);
}

bool restore_cached_text(const std::string& path, const std::string& text, std::string* note) {
  std::error_code ec;
  const bool there = fs::exists(path, ec);
  if (there && fs::is_regular_file(path, ec) && fs::file_size(path, ec) == text.size() && read_bytes(path) == text) return true;
  if (there) *note = fmt::format("the cached copy {} differed from hkcheck's: it was written again", path);
  return write_file_atomic(path, text, nullptr);
}

CacheEntryLock::CacheEntryLock(const std::string& path) {
  fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;
  // Another process's compile holds it for at most its time limit, unless it was stopped: the wait
  // names the holder, and an interrupted run stops waiting.
  if (!lock_exclusive_waiting(fd_, path + ".lock")) {
    ::close(fd_);
    fd_ = -1;
  }
}

CacheEntryLock::~CacheEntryLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void note_cache_repair(const std::string& what) {
  std::lock_guard<std::mutex> lock(g_repairs_mutex);
  g_repairs.push_back(what);
}

std::vector<std::string> take_cache_repairs() {
  std::lock_guard<std::mutex> lock(g_repairs_mutex);
  return std::exchange(g_repairs, {});
}

}  // namespace hk
