#include "reference_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cache_seal.h"
#include "file_util.h"
#include "fnv1a.h"
#include "whole_number.h"

namespace hk {
namespace fs = std::filesystem;
namespace {

constexpr const char* kRefEntrySchema = "hkcheck-reference-outputs";
constexpr const char* kRefEntrySuffix = ".ref";
// A temporary file this old was left by a killed writer; a live one finishes in far less.
constexpr auto kStaleRefTemporary = std::chrono::hours(1);

std::string exact_number(double v) { return fmt::format("{:.17g}", v); }

// The outputs of the plan: what the reference writes.
OutputCounts planned_output_counts(const CasePlan& plan) {
  OutputCounts out;
  for (const TensorPlan& t : plan.tensors)
    if (t.role != Role::in) out.emplace_back(t.name, t.numel);
  return out;
}

std::optional<std::string> read_entry_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(ss).str();
}

// Why an entry's bytes are not the outputs of key, or "" (and *out filled) when they are.
std::string unpack_entry(const std::string& bytes, const std::string& key, const OutputCounts& expected, ReferenceOutputs* out) {
  const size_t nl = bytes.find('\n');
  if (nl == std::string::npos || nl > (size_t{1} << 20)) return "it has no header line";
  ReferenceCacheHeader h;
  try {
    h = nlohmann::json::parse(bytes.substr(0, nl)).get<ReferenceCacheHeader>();
  } catch (const nlohmann::json::exception& e) {
    return std::string("its header is unreadable (") + e.what() + ")";
  }
  if (h.key != key) return "it holds the outputs of another key, " + h.key;
  const size_t payload = bytes.size() - nl - 1;
  if (payload != h.payload_bytes) return fmt::format("{} bytes of outputs where its header says {}", payload, h.payload_bytes);
  const std::string data = bytes.substr(nl + 1);
  if (bytes_hash(data) != h.hash) return "its outputs differ from its header's hash";
  const size_t n = h.tensors.size();
  if (h.counts.size() != n || h.dtypes.size() != n || h.shapes.size() != n || n < expected.size())
    return "it holds other outputs than the case's";
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i < expected.size() && (h.tensors[i] != expected[i].first || h.counts[i] != expected[i].second))
      return fmt::format("its output {} is '{}' of {} elements, the case's '{}' of {}", i, h.tensors[i], h.counts[i], expected[i].first,
                         expected[i].second);
    if (h.counts[i] < 0 || static_cast<uint64_t>(h.counts[i]) > h.payload_bytes / sizeof(double)) return "its header's counts are out of range";
    total += static_cast<uint64_t>(h.counts[i]) * sizeof(double);
  }
  if (total != h.payload_bytes) return "its header's counts do not add up to its size";
  out->clear();
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    ref::Tensor t{h.tensors[i], h.dtypes[i], h.shapes[i], std::vector<double>(static_cast<size_t>(h.counts[i]))};
    std::memcpy(t.data.data(), data.data() + at, t.data.size() * sizeof(double));
    at += t.data.size() * sizeof(double);
    out->push_back(std::move(t));
  }
  return "";
}

struct CachedEntryFile {
  fs::path path;
  uint64_t bytes = 0;
  fs::file_time_type used;
};

}  // namespace

uint64_t reference_cache_bound() {
  if (const char* v = std::getenv("HKCHECK_REF_CACHE_MB"); v && *v) {
    if (const auto mb = parse_whole_number(v); mb && *mb < (uint64_t{1} << 40)) return *mb << 20;
  }
  return kDefaultReferenceCacheBytes;
}

std::string reference_cache_folder(const std::string& cache_dir) { return cache_dir + "/reference-outputs"; }

std::string reference_library_identity(const std::string& library) {
  if (library.empty()) return "";
  const std::optional<Seal> seal = read_seal(library);
  if (!seal) return "";
  return fmt::format("{}:{}:{:016x}", seal->entry, seal->size, seal->hash);
}

std::string reference_cache_key(const CaseJob& job, const std::string& library_identity, int generation) {
  std::string text = fmt::format("format {}\ngeneration {}\nlibrary {}\nreference {}\nkernel {}\nstream {}\nseed {}\n", kReferenceCacheFormat,
                                 generation, library_identity, job.reference, job.kernel, job.stream_name, job.seed);
  for (const auto& [name, v] : job.plan.params) {
    if (const auto* d = std::get_if<double>(&v)) text += "param " + name + " = " + exact_number(*d) + "\n";
    else text += "param " + name + " = '" + std::get<std::string>(v) + "'\n";
  }
  for (const TensorPlan& t : job.plan.tensors) {
    text += fmt::format("tensor {} {} {} [{}] {}", t.name, role_name(t.role), dtype_name(t.dtype), fmt::join(t.shape, ","), t.init.kind);
    for (const auto& [field, v] : t.init.fields) text += " " + field + "=" + exact_number(v);
    text += "\n";
  }
  return fmt::format("{:016x}", fnv1a(text));
}

void to_json(nlohmann::json& j, const ReferenceCacheHeader& h) {
  j = {{"schema", kRefEntrySchema}, {"version", kReferenceCacheFormat}, {"key", h.key},
       {"tensors", h.tensors},         {"counts", h.counts},                {"dtypes", h.dtypes},
       {"shapes", h.shapes},           {"payload_bytes", h.payload_bytes},  {"hash64", fmt::format("{:016x}", h.hash)}};
}

void from_json(const nlohmann::json& j, ReferenceCacheHeader& h) {
  if (j.at("schema").get<std::string>() != kRefEntrySchema || j.at("version").get<int>() != kReferenceCacheFormat)
    throw nlohmann::json::other_error::create(501, "not a reference cache entry of this version", &j);
  h.key = j.at("key").get<std::string>();
  h.tensors = j.at("tensors").get<std::vector<std::string>>();
  h.counts = j.at("counts").get<std::vector<int64_t>>();
  h.dtypes = j.at("dtypes").get<std::vector<std::string>>();
  h.shapes = j.at("shapes").get<std::vector<std::vector<int64_t>>>();
  h.payload_bytes = j.at("payload_bytes").get<uint64_t>();
  const std::string hex = j.at("hash64").get<std::string>();
  char* end = nullptr;
  h.hash = std::strtoull(hex.c_str(), &end, 16);
  if (hex.size() != 16 || end != hex.c_str() + hex.size()) throw nlohmann::json::other_error::create(501, "hash64 is not 16 hex digits", &j);
}

ReferenceCache::ReferenceCache(std::string folder, uint64_t bound_bytes) : folder_(std::move(folder)), bound_(bound_bytes) {}

std::string ReferenceCache::path_of(const std::string& key) const { return folder_ + "/" + key + kRefEntrySuffix; }

std::optional<ReferenceOutputs> ReferenceCache::read(const std::string& key, const OutputCounts& expected, std::string* note) {
  const std::string path = path_of(key);
  const auto bytes = read_entry_bytes(path);
  if (!bytes) return std::nullopt;  // not there (or evicted while we looked): a miss
  ReferenceOutputs out;
  if (const std::string why = unpack_entry(*bytes, key, expected, &out); !why.empty()) {
    if (note) *note = fmt::format("the cached reference outputs {} were damaged ({}): the reference was computed again", path, why);
    std::error_code ec;
    fs::remove(path, ec);
    return std::nullopt;
  }
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: the last to be evicted
  return out;
}

bool ReferenceCache::write(const std::string& key, const ReferenceOutputs& outputs) {
  ReferenceCacheHeader h{key, {}, {}, {}, {}, 0, 0};
  std::string data;
  for (const ref::Tensor& t : outputs) {
    h.tensors.push_back(t.name);
    h.counts.push_back(static_cast<int64_t>(t.data.size()));
    h.dtypes.push_back(t.dtype);
    h.shapes.push_back(t.shape);
    data.append(reinterpret_cast<const char*>(t.data.data()), t.data.size() * sizeof(double));
  }
  h.payload_bytes = data.size();
  h.hash = bytes_hash(data);
  const std::string entry = nlohmann::json(h).dump() + "\n" + data;
  if (entry.size() > bound_) return false;
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (!write_file_atomic(path_of(key), entry, nullptr)) return false;
  known_bytes_ += entry.size();
  if (!scanned_ || known_bytes_ > bound_) trim();
  return true;
}

void ReferenceCache::trim() {
  scanned_ = true;
  const int lock = ::open((folder_ + "/.trim.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return;
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0) {  // another process is trimming: it sees our entry too
    ::close(lock);
    return;
  }
  std::vector<CachedEntryFile> entries;
  uint64_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    const std::string name = p.filename().string();
    std::error_code e2;
    const auto used = fs::last_write_time(p, e2);
    const uintmax_t size = fs::file_size(p, e2);
    if (e2) continue;  // evicted by another process meanwhile
    if (name.find(".tmp-") != std::string::npos) {
      if (now - used > kStaleRefTemporary) fs::remove(p, e2);
      continue;
    }
    if (p.extension() != kRefEntrySuffix) continue;
    entries.push_back({p, size, used});
    total += size;
  }
  std::sort(entries.begin(), entries.end(), [](const CachedEntryFile& a, const CachedEntryFile& b) { return a.used < b.used; });
  for (const CachedEntryFile& e : entries) {
    if (total <= bound_) break;
    std::error_code e2;
    if (fs::remove(e.path, e2)) total -= e.bytes;
  }
  known_bytes_ = total;
  ::close(lock);
}

bool fill_reference_outputs(ReferenceCache& cache, const std::string& key, const CasePlan& plan, ref::Context& ctx,
                            std::vector<std::string>* notes) {
  const OutputCounts expected = planned_output_counts(plan);
  std::string note;
  auto got = cache.read(key, expected, &note);
  if (!note.empty()) notes->push_back(note);
  if (!got) return false;
  for (size_t i = expected.size(); i < got->size(); ++i)  // an added tensor never stands in for one of the plan's
    if (std::any_of(plan.tensors.begin(), plan.tensors.end(), [&](const TensorPlan& t) { return t.name == (*got)[i].name; })) return false;
  // The outputs are copied into the vectors the reference would have written, so the guard
  // behind them stays armed; the tensors it added are added again.
  for (size_t i = 0; i < got->size(); ++i) {
    ref::Tensor& t = (*got)[i];
    if (i < expected.size()) std::copy(t.data.begin(), t.data.end(), ctx.tensors.at(t.name).data.begin());
    else ctx.tensors[t.name] = std::move(t);
  }
  return true;
}

std::vector<uint64_t> input_digest(const CasePlan& plan, const ref::Context& ctx) {
  std::vector<uint64_t> d;
  for (const TensorPlan& t : plan.tensors) {
    if (t.role != Role::in) continue;
    const std::vector<double>& v = ctx.tensors.at(t.name).data;
    d.push_back(bytes_hash(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double))));
  }
  return d;
}

void store_reference_outputs(ReferenceCache& cache, const std::string& key, const CasePlan& plan, const ref::Context& ctx,
                             const std::vector<uint64_t>& before) {
  if (input_digest(plan, ctx) != before) return;  // the reference changed an input: reading back could not
  ReferenceOutputs outputs;
  for (const TensorPlan& t : plan.tensors) {
    if (t.role == Role::in) continue;
    const ref::Tensor& out = ctx.tensors.at(t.name);
    if (static_cast<int64_t>(out.data.size()) != t.numel) return;  // a resized output is the case's ERROR, never cached
    outputs.push_back(out);
  }
  for (const auto& [name, t] : ctx.tensors)
    if (std::none_of(plan.tensors.begin(), plan.tensors.end(), [&](const TensorPlan& p) { return p.name == name; })) outputs.push_back(t);
  cache.write(key, outputs);
}

}  // namespace hk
