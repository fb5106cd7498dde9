#include "refs/reference_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <list>
#include <nlohmann/json.hpp>

#include "compile/block_hash.h"
#include "compile/cache_seal.h"
#include "util/file_util.h"
#include "util/fnv1a.h"
#include "util/parallel_for.h"
#include "refs/reference_entry_values.h"
#include "util/whole_number.h"

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

// The longest header line an entry may have: beyond it, the file is not an entry.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

// An open file, closed on every path out.
class OpenFile {
 public:
  explicit OpenFile(int fd) : fd_(fd) {}
  ~OpenFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

// Why a header read from an entry with payload bytes after its line is not the outputs of key
// (expected first), or "".
std::string header_mismatch(const ReferenceCacheHeader& h, const std::string& key, uint64_t payload, const OutputCounts& expected) {
  if (h.key != key) return "it holds the outputs of another key, " + h.key;
  if (payload != h.payload_bytes) return fmt::format("{} bytes of outputs where its header says {}", payload, h.payload_bytes);
  const size_t n = h.tensors.size();
  if (h.counts.size() != n || h.dtypes.size() != n || h.shapes.size() != n || h.widths.size() != n || h.hashes.size() != n ||
      n < expected.size())
    return "it holds other outputs than the case's";
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i < expected.size() && (h.tensors[i] != expected[i].first || h.counts[i] != expected[i].second))
      return fmt::format("its output {} is '{}' of {} elements, the case's '{}' of {}", i, h.tensors[i], h.counts[i], expected[i].first,
                         expected[i].second);
    if (h.widths[i] != 4 && h.widths[i] != 8) return fmt::format("its output {} is stored {} bytes a value", i, h.widths[i]);
    if (h.counts[i] < 0 || static_cast<uint64_t>(h.counts[i]) > h.payload_bytes / static_cast<uint64_t>(h.widths[i]))
      return "its header's counts are out of range";
    total += static_cast<uint64_t>(h.counts[i]) * static_cast<uint64_t>(h.widths[i]);
  }
  if (total != h.payload_bytes) return "its header's counts do not add up to its size";
  return "";
}

// Writes header and the tensors' values (widths[i] bytes each) to a temporary file, renamed to
// path when whole. Not synced: a crash may leave the entry torn, which its hashes find when it is read.
bool write_entry(const std::string& path, const std::string& header, const std::vector<const ref::Tensor*>& tensors,
                 const std::vector<int>& widths) {
  const std::string tmp = temporary_beside(path);
  ::unlink(tmp.c_str());  // a stale one, or a link planted at the name: O_EXCL would refuse it
  OpenFile f(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (f.fd() < 0) return false;
  bool ok = write_all(f.fd(), header.data(), header.size());
  for (size_t i = 0; i < tensors.size(); ++i)
    ok = ok && write_stored(f.fd(), tensors[i]->data.data(), tensors[i]->numel(), widths[i]);
  ok = f.close() && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
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
    if (t.init.derived()) text += " reference=" + t.init.reference + " output=" + t.init.output;
    text += "\n";
  }
  return fmt::format("{:016x}", fnv1a(text));
}

namespace {
std::vector<std::string> hex_words(const std::vector<uint64_t>& words) {
  std::vector<std::string> hex;
  for (const uint64_t w : words) hex.push_back(fmt::format("{:016x}", w));
  return hex;
}
}  // namespace

void to_json(nlohmann::json& j, const ReferenceCacheHeader& h) {
  j = {{"schema", kRefEntrySchema}, {"version", kReferenceCacheFormat}, {"key", h.key},
       {"tensors", h.tensors},         {"counts", h.counts},                {"dtypes", h.dtypes},
       {"shapes", h.shapes},           {"widths", h.widths},                {"payload_bytes", h.payload_bytes},
       {"hashes64", hex_words(h.hashes)}};
}

void from_json(const nlohmann::json& j, ReferenceCacheHeader& h) {
  if (j.at("schema").get<std::string>() != kRefEntrySchema || j.at("version").get<int>() != kReferenceCacheFormat)
    throw nlohmann::json::other_error::create(501, "not a reference cache entry of this version", &j);
  h.key = j.at("key").get<std::string>();
  h.tensors = j.at("tensors").get<std::vector<std::string>>();
  h.counts = j.at("counts").get<std::vector<int64_t>>();
  h.dtypes = j.at("dtypes").get<std::vector<std::string>>();
  h.shapes = j.at("shapes").get<std::vector<std::vector<int64_t>>>();
  h.widths = j.at("widths").get<std::vector<int>>();
  h.payload_bytes = j.at("payload_bytes").get<uint64_t>();
  h.hashes.clear();
  for (const std::string& hex : j.at("hashes64").get<std::vector<std::string>>()) {
    char* end = nullptr;
    h.hashes.push_back(std::strtoull(hex.c_str(), &end, 16));
    if (hex.size() != 16 || end != hex.c_str() + hex.size()) throw nlohmann::json::other_error::create(501, "hashes64 holds a value that is not 16 hex digits", &j);
  }
}

ReferenceCache::ReferenceCache(std::string folder, uint64_t bound_bytes) : folder_(std::move(folder)), bound_(bound_bytes) {}

std::string ReferenceCache::path_of(const std::string& key) const { return folder_ + "/" + key + kRefEntrySuffix; }

std::optional<ReferenceOutputs> ReferenceCache::read(const std::string& key, const OutputCounts& expected, std::string* note) {
  std::list<ref::Tensor> out;  // a list: the buffers handed out stay where they are
  auto place = [&](size_t, const ref::Tensor& described, int64_t count) {
    out.push_back(described);
    out.back().data.resize(static_cast<size_t>(count));
    return out.back().data.data();
  };
  bool read_any = false;
  if (!read_into(key, expected, place, note, &read_any)) return std::nullopt;
  return ReferenceOutputs(std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()));
}

bool ReferenceCache::read_into(const std::string& key, const OutputCounts& expected, const Place& place, std::string* note, bool* read_any) {
  *read_any = false;
  const std::string path = path_of(key);
  OpenFile f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd() < 0) return false;  // not there (or evicted while we looked): a miss
  auto damaged = [&](const std::string& why) {
    if (note) *note = fmt::format("the cached reference outputs {} were damaged ({}): the reference was computed again", path, why);
    std::error_code ec;
    fs::remove(path, ec);
    return false;
  };
  struct stat st {};
  if (::fstat(f.fd(), &st) != 0) return damaged("it cannot be read");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  std::string head(static_cast<size_t>(std::min<uint64_t>(size, kMaxHeaderBytes + 1)), '\0');
  if (!read_at(f.fd(), head.data(), head.size(), 0)) return damaged("it cannot be read");
  const size_t nl = head.find('\n');
  if (nl == std::string::npos) return damaged("it has no header line");
  ReferenceCacheHeader h;
  try {
    h = nlohmann::json::parse(head.substr(0, nl)).get<ReferenceCacheHeader>();
  } catch (const nlohmann::json::exception& e) {
    return damaged(std::string("its header is unreadable (") + e.what() + ")");
  }
  if (const std::string why = header_mismatch(h, key, size - nl - 1, expected); !why.empty()) return damaged(why);
  std::vector<double*> dst;
  for (size_t i = 0; i < h.tensors.size(); ++i) {
    dst.push_back(place(i, ref::Tensor{h.tensors[i], h.dtypes[i], h.shapes[i], {}}, h.counts[i]));
    if (!dst.back()) return false;
  }
  *read_any = true;
  uint64_t at = nl + 1;
  for (size_t i = 0; i < dst.size(); ++i) {
    if (const std::string why = read_stored(f.fd(), dst[i], h.counts[i], h.widths[i], at, h.hashes[i]); !why.empty()) return damaged(why);
    at += static_cast<uint64_t>(h.counts[i]) * static_cast<uint64_t>(h.widths[i]);
  }
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: the last to be evicted
  return true;
}

bool ReferenceCache::write(const std::string& key, const ReferenceOutputs& outputs) {
  std::vector<const ref::Tensor*> tensors;
  for (const ref::Tensor& t : outputs) tensors.push_back(&t);
  return write(key, tensors);
}

bool ReferenceCache::write(const std::string& key, const std::vector<const ref::Tensor*>& outputs) {
  ReferenceCacheHeader h{key, {}, {}, {}, {}, {}, 0, {}};
  for (const ref::Tensor* t : outputs) {
    h.tensors.push_back(t->name);
    h.counts.push_back(t->numel());
    h.dtypes.push_back(t->dtype);
    h.shapes.push_back(t->shape);
    h.widths.push_back(stored_width(t->data.data(), t->numel()));
    h.payload_bytes += static_cast<uint64_t>(t->numel()) * static_cast<uint64_t>(h.widths.back());
  }
  if (h.payload_bytes > bound_) return false;  // before hashing or writing gigabytes for nothing
  for (size_t i = 0; i < outputs.size(); ++i) h.hashes.push_back(stored_hash(outputs[i]->data.data(), outputs[i]->numel(), h.widths[i]));
  const std::string header = nlohmann::json(h).dump() + "\n";
  const uint64_t entry_bytes = header.size() + h.payload_bytes;
  if (entry_bytes > bound_) return false;
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (!write_entry(path_of(key), header, outputs, h.widths)) return false;
  known_bytes_ += entry_bytes;
  written_since_trim_ += entry_bytes;
  // Other workers write into the folder too, unseen by known_bytes_: past a sixteenth of the
  // bound written here, the folder is measured again. It then exceeds its bound by at most a
  // sixteenth per writer.
  if (!scanned_ || known_bytes_ > bound_ || written_since_trim_ > bound_ / 16) trim();
  return true;
}

void ReferenceCache::trim() {
  scanned_ = true;
  written_since_trim_ = 0;
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
  // The outputs are read into the vectors the reference would have written, so the guard behind
  // them stays armed; the tensors it added are read aside and added once the entry proved whole.
  std::list<ref::Tensor> added;  // a list: the buffers handed out stay where they are
  auto place = [&](size_t i, const ref::Tensor& described, int64_t count) -> double* {
    if (i < expected.size()) return ctx.tensors.at(described.name).data.data();
    // An added tensor never stands in for one of the plan's.
    if (std::any_of(plan.tensors.begin(), plan.tensors.end(), [&](const TensorPlan& t) { return t.name == described.name; })) return nullptr;
    added.push_back(described);
    added.back().data.resize(static_cast<size_t>(count));
    return added.back().data.data();
  };
  std::string note;
  bool read_any = false;
  const bool hit = cache.read_into(key, expected, place, &note, &read_any);
  if (!note.empty()) notes->push_back(note);
  if (!hit) {
    if (read_any)  // the reference computes them again from the state it was armed in
      for (const auto& [name, n] : expected) {
        std::vector<double>& v = ctx.tensors.at(name).data;
        parallel_chunks(n, kElementChunk, [&](int64_t, int64_t b, int64_t e) { std::fill(v.begin() + b, v.begin() + e, std::nan("")); });
      }
    return false;
  }
  for (ref::Tensor& t : added) ctx.tensors[t.name] = std::move(t);
  return true;
}

std::vector<uint64_t> input_digest(const CasePlan& plan, const ref::Context& ctx, const std::vector<bool>& checked) {
  std::vector<uint64_t> d;
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    if (t.role != Role::in || i >= checked.size() || !checked[i]) continue;
    const std::vector<double>& v = ctx.tensors.at(t.name).data;
    d.push_back(block_hash(v.data(), v.size() * sizeof(double)));
  }
  return d;
}

void store_reference_outputs(ReferenceCache& cache, const std::string& key, const CasePlan& plan, const ref::Context& ctx,
                             const std::vector<bool>& checked, const std::vector<uint64_t>& before) {
  if (input_digest(plan, ctx, checked) != before) return;  // the reference changed an input a check reads: reading back could not
  std::vector<const ref::Tensor*> outputs;
  for (const TensorPlan& t : plan.tensors) {
    if (t.role == Role::in) continue;
    const ref::Tensor& out = ctx.tensors.at(t.name);
    if (static_cast<int64_t>(out.data.size()) != t.numel) return;  // a resized output is the case's ERROR, never cached
    outputs.push_back(&out);
  }
  for (const auto& [name, t] : ctx.tensors)
    if (std::none_of(plan.tensors.begin(), plan.tensors.end(), [&](const TensorPlan& p) { return p.name == name; })) outputs.push_back(&t);
  cache.write(key, outputs);
}

}  // namespace hk
