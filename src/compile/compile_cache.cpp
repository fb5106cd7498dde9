#include "compile/compile_cache.h"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compile/cache_seal.h"
#include "compile/compile_lock.h"
#include "util/file_util.h"
#include "util/fnv1a.h"
#include "compile/include_closure.h"
#include "compile/kernel_file_compile.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

// A cache entry is the binary behind a line giving its key, size and hash, checked before use:
// an entry that another key's file was copied or renamed over is not taken for this one.
constexpr const char* kCacheMagic = "HKCC3";
std::string seal_cache_entry(const std::string& key, const std::string& binary) {
  return fmt::format("{} {} {} {:016x}\n", kCacheMagic, key, binary.size(), fnv1a(binary)) + binary;
}

// A cache entry holds the binary, what its entries resolved to and the compiler's log (its
// warnings; on NVIDIA the figures --compile-only reads): a line of JSON, then the bytes.
// The log's paths inside the project are kept relative to its root and read back in the reader's.
std::string cache_entry(const CompileOutput& out, const RootRelative& root) {
  return nlohmann::json{{"symbols", out.symbols}, {"entry_errors", out.entry_errors}, {"log", root.without_root(out.log)}}.dump() + "\n" +
         out.binary;
}
std::optional<CompileOutput> cached_output(const std::string& entry, const RootRelative& root) {
  const size_t nl = entry.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  CompileOutput out{true, entry.substr(nl + 1), "", {}, {}};
  try {
    const nlohmann::json head = nlohmann::json::parse(entry.substr(0, nl));
    out.symbols = head.at("symbols").get<std::map<std::string, std::string>>();
    out.entry_errors = head.at("entry_errors").get<std::map<std::string, std::string>>();
    out.log = root.with_root(head.value("log", ""));  // entries written before the log was kept have none
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return out;
}

// The prelude headers a backend's compiles may get: the row's keyed set (for HIP, ROCm 5's
// stand-ins too, a superset of what either hipRTC gets).
std::string prelude_text(const std::string& backend) {
  std::string text;
  const BackendRow* row = find_backend(backend);
  for (const auto& [n, t] : prelude_headers(row ? row->keyed_prelude : backend)) text += n + "\n" + t + "\n";
  return text;
}

}  // namespace

std::optional<std::string> unseal_cache_entry(const std::string& entry, const std::string& key) {
  const size_t nl = entry.find('\n');
  if (nl == std::string::npos || nl > 96) return std::nullopt;
  char magic[8] = {}, sealed_key[33] = {};
  unsigned long long size = 0, hash = 0;
  if (std::sscanf(entry.substr(0, nl).c_str(), "%7s %32s %llu %llx", magic, sealed_key, &size, &hash) != 4 ||
      std::string(magic) != kCacheMagic || sealed_key != key)
    return std::nullopt;
  std::string binary = entry.substr(nl + 1);
  if (binary.empty() || binary.size() != size || fnv1a(binary) != hash) return std::nullopt;
  return binary;
}

Backend::Kernel CompileCache::load(Backend& be, const std::string& key, const std::string& binary, const std::string& entry) {
  const std::string id = key + "\n" + entry;
  if (const auto it = loaded_.find(id); it != loaded_.end()) return it->second;
  Backend::Kernel fn = be.load(binary, entry);  // MissingEntry is not remembered: it throws again next time
  loaded_[id] = fn;
  return fn;
}

std::string run_compile_key_head(const DeviceInfo& d) {
  // The warp size is compiled in (HK_WARP_SIZE), and host profiles may differ in it alone.
  return d.backend + "\n" + d.arch + "\n" + d.runtime_version + "\n" + std::to_string(d.warp_size) + "\n" + prelude_text(d.backend);
}

CompileOutput CompileCache::get(Backend& be, const CompileRequest& q, bool* cached, std::string* key_out) {
  const DeviceInfo& d = be.device();
  return *get_keyed(run_compile_key_head(d), d.backend, [&](const CompileRequest& r) { return be.compile(r); }, q, cached, key_out, true);
}

CompileOutput CompileCache::get(const std::string& compiler, const std::string& backend, const CompileFn& compile, const CompileRequest& q,
                                bool* cached) {
  // Its own first line: a run's key names a device, whose compiles may differ from these.
  return *get_keyed("compile-only\n" + backend + "\n" + compiler + "\n" + prelude_text(backend), backend, compile, q, cached, nullptr,
                    true);
}

std::optional<CompileOutput> CompileCache::get_ahead(const DeviceInfo& device, const CompileFn& compile, const CompileRequest& q,
                                                     bool* cached) {
  return get_keyed(run_compile_key_head(device), device.backend, compile, q, cached, nullptr, false);
}

std::string CompileCache::key_of(const std::string& key_head, const CompileRequest& q) const {
  // Every path as the root sees it; the contents of the source and of every header it can reach.
  std::string key_text = key_head;
  for (const auto& o : q.options) key_text += root_.option(o) + "\n";
  for (const auto& e : q.entries) key_text += "entry " + e + "\n";
  key_text += include_closure_key(q.source, q.source_name, include_search(q.options), root_) + "\n";
  key_text += root_.path(q.source_name) + "\n" + q.source;
  return fmt::format("{:016x}", fnv1a(key_text));
}

bool CompileCache::kept_for_run(const DeviceInfo& device, const CompileRequest& q) const {
  std::error_code ec;
  return !dir_.empty() && std::filesystem::exists(dir_ + "/" + key_of(run_compile_key_head(device), q) + ".bin", ec);
}

std::optional<CompileOutput> CompileCache::read_kept(const std::string& file, const std::string& key, bool* there) {
  std::ifstream in(file, std::ios::binary);
  *there = static_cast<bool>(in);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  // A torn, altered or misplaced entry (a full disk, a killed writer, a copy) is compiled again, never loaded.
  if (auto entry = unseal_cache_entry(ss.str(), key))
    if (auto out = cached_output(*entry, root_)) return out;
  note_cache_repair(fmt::format("the cached compile {} was damaged or sealed for another compile: it was compiled again", file));
  return std::nullopt;
}

std::optional<CompileOutput> CompileCache::get_keyed(const std::string& key_head, const std::string& backend, const CompileFn& compile,
                                                     const CompileRequest& q, bool* cached, std::string* key_out, bool wait_for_others) {
  const std::string key = key_of(key_head, q);
  if (key_out) *key_out = key;
  *cached = true;
  if (const auto it = memory_.find(key); it != memory_.end()) return it->second;
  const std::string file = dir_.empty() ? "" : dir_ + "/" + key + ".bin";
  bool there = false;  // a damaged entry, noted once: no other process made it while this one waited
  std::optional<CompileLock> lock;
  if (!file.empty()) {
    if (auto out = read_kept(file, key, &there)) return memory_[key] = std::move(*out);
    // Another process compiling the same key: wait for its entry, or leave the key to it.
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    lock.emplace(dir_ + "/" + key + ".lock", wait_for_others);
    if (lock->busy()) return std::nullopt;
    if (lock->held() && !there)
      if (auto out = read_kept(file, key, &there)) return memory_[key] = std::move(*out);
  }
  *cached = false;
  CompileOutput out = compile_kernel_file(compile, q, backend);
  memory_[key] = out;  // a failure too: the file's other cases in this process report it without compiling again
  if (out.ok && !file.empty())
    write_file_atomic(file, seal_cache_entry(key, cache_entry(out, root_)), nullptr);  // best effort: a cache that cannot be written only costs time
  return out;
}

}  // namespace hk
