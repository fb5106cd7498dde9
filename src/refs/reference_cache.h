// Reference outputs kept between runs. A reference is a pure function of its library, its name,
// the case's plan (params, tensor names, dtypes, shapes, roles, generators) and the inputs' seed,
// so its outputs are stored under a key made of all of them and of the input generator's version
// (generator.h). A rerun after an edit to the kernel then reads them back instead of recomputing.
//
// Each entry is one file, <folder>/<key>.ref: a line of JSON (ReferenceCacheHeader) and the
// outputs' values: as floats where every value of a tensor is one exactly (a copy, a mask, values
// rounded to f32 or narrower), else as doubles. It is written straight from the reference's vectors to a temporary name and
// renamed into place, so several workers may write at once; it is read straight into the case's
// vectors and checked against its header's hashes (block_hash.h, at memory speed), and one that does not
// match (torn, truncated, edited, another key's) is removed and recomputed, with a note. The
// folder is bounded: past its size, the entries used least recently go first.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "contracts/case_job.h"
#include "refs/generator.h"
#include "reference.h"

namespace hk {

// Bumped when an entry's layout changes; part of every key.
constexpr int kReferenceCacheFormat = 4;
// The folder's bound unless HKCHECK_REF_CACHE_MB says otherwise.
// A whole --all of this project's corpus keeps about 12 GB (its largest cases' outputs in
// double), all read back by the next run; 4 GiB kept a third of it.
constexpr uint64_t kDefaultReferenceCacheBytes = uint64_t{16} << 30;

// The bound in bytes: HKCHECK_REF_CACHE_MB (whole MiB) when set and valid, else the default.
uint64_t reference_cache_bound();

// Where a cache folder keeps reference outputs.
std::string reference_cache_folder(const std::string& cache_dir);

// What identifies the reference library at path: its sealed content hash (cache_seal.h), or ""
// when it has no readable seal or path is "" (references linked into this program): such
// references are not cached.
std::string reference_library_identity(const std::string& library);

// 16 hex digits over everything the reference's outputs depend on. generation: the input
// generator's version (a parameter so that tests can vary it).
std::string reference_cache_key(const CaseJob& job, const std::string& library_identity,
                                int generation = kInputGenerationVersion);

// The first line of an entry.
struct ReferenceCacheHeader {
  std::string key;
  std::vector<std::string> tensors;  // the outputs in plan order, then the tensors the reference added
  std::vector<int64_t> counts;       // their element counts
  std::vector<std::string> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<int> widths;           // bytes per stored value: 4 (a float, exactly the double) or 8
  uint64_t payload_bytes = 0;        // the values after the line
  std::vector<uint64_t> hashes;      // block_hash (block_hash.h) of each tensor's stored bytes
};
void to_json(nlohmann::json& j, const ReferenceCacheHeader& h);
void from_json(const nlohmann::json& j, ReferenceCacheHeader& h);  // throws nlohmann::json::exception

// What a reference leaves in its context besides the inputs: the case's outputs in plan order,
// then any tensor it added (a dequantization check's target, say). The plan's outputs by name
// and element count.
using ReferenceOutputs = std::vector<ref::Tensor>;
using OutputCounts = std::vector<std::pair<std::string, int64_t>>;

class ReferenceCache {
 public:
  ReferenceCache(std::string folder, uint64_t bound_bytes);

  // The tensors stored under key, when its entry is intact and begins with exactly the outputs of
  // `expected` (names and counts, in order). An entry that is there but damaged is removed and
  // *note says so. A hit marks the entry as used now.
  std::optional<ReferenceOutputs> read(const std::string& key, const OutputCounts& expected, std::string* note);
  // The same, read straight into the buffers `place` gives for each tensor of the entry (count
  // doubles each), asked for all of them before any byte is read; a null buffer refuses the entry
  // (a miss, nothing read). After a false return with *read_any, those buffers hold garbage.
  using Place = std::function<double*(size_t index, const ref::Tensor& described, int64_t count)>;
  bool read_into(const std::string& key, const OutputCounts& expected, const Place& place, std::string* note, bool* read_any);
  // Stores outputs under key (best effort: false when it cannot be written or exceeds the bound
  // alone), then keeps the folder within its bound. Written from the tensors in place, no copy.
  bool write(const std::string& key, const std::vector<const ref::Tensor*>& outputs);
  bool write(const std::string& key, const ReferenceOutputs& outputs);
  // Removes the least recently used entries until the folder is within its bound, and temporary
  // files left by killed writers. Another process trimming at the same time makes this one skip.
  void trim();

  const std::string& folder() const { return folder_; }

 private:
  std::string path_of(const std::string& key) const;
  std::string folder_;
  uint64_t bound_;
  uint64_t known_bytes_ = 0;  // the folder's size at the last trim, plus what this process wrote since
  uint64_t written_since_trim_ = 0;
  bool scanned_ = false;
};

// For case_exec: the case's outputs, and the tensors the reference added, filled from the cache;
// true on a hit. A damaged entry adds a note.
bool fill_reference_outputs(ReferenceCache& cache, const std::string& key, const CasePlan& plan, ref::Context& ctx,
                            std::vector<std::string>* notes);

// Hashes of the values of the in tensors `checked` marks (by tensor index: those a check reads
// after the reference, inputs_read_by_checks), taken before the reference runs. A reference that
// changes one of them is not cached: reading its outputs back would leave that input as it was,
// and the check would see other values than when it was computed. Any other input may change:
// the outputs are what the reference computes again from the same inputs, and nothing else reads
// it. So a case with no such check hashes nothing (its inputs may be gigabytes of doubles).
std::vector<uint64_t> input_digest(const CasePlan& plan, const ref::Context& ctx, const std::vector<bool>& checked);

// Stores what the reference left (outputs of the planned sizes only; the `checked` inputs
// unchanged since `before`).
void store_reference_outputs(ReferenceCache& cache, const std::string& key, const CasePlan& plan, const ref::Context& ctx,
                             const std::vector<bool>& checked, const std::vector<uint64_t>& before);

}  // namespace hk
