#include "refs/derived_inputs.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "contracts/case_phase.h"
#include "model/dtype.h"
#include "util/fnv1a.h"
#include "refs/reference_cache.h"
#include "refs/reference_guard.h"
#include "refs/reference_context_parts.h"
#include "refs/runtime_references.h"

namespace hk {
namespace {

// What an output element holds until the reference writes it: a signaling NaN that no
// arithmetic produces, so an output smaller than its tensor shows as elements still holding it.
constexpr uint64_t kUnwritten = 0x7FF4F00DFEED0001ull;

double unwritten_value() {
  double v;
  std::memcpy(&v, &kUnwritten, sizeof v);
  return v;
}

int64_t count_unwritten(const std::vector<double>& data) {
  int64_t n = 0;
  for (const double v : data) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    n += bits == kUnwritten;
  }
  return n;
}

// The run's Context: params, the inputs that are not derived, and the outputs of `reference`.
ref::Context forward_context(const CaseJob& job, const std::vector<std::vector<uint8_t>>& packed, const std::string& reference) {
  const CasePlan& plan = job.plan;
  ref::Context ctx = context_with_params(plan);
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    if (t.role == Role::out || t.init.derived()) continue;
    ref::Tensor rt{t.name, dtype_name(t.dtype), t.shape, {}};
    decode_tensor(t, packed[i], rt.data);
    ctx.tensors[t.name] = std::move(rt);
  }
  for (const TensorPlan& t : plan.tensors) {
    if (!t.init.derived() || t.init.reference != reference) continue;
    ref::Tensor rt{t.init.output, dtype_name(t.dtype), t.shape, {}};
    arm_reference_guard(rt.data, static_cast<size_t>(t.numel), unwritten_value());
    ctx.tensors[t.init.output] = std::move(rt);
  }
  return ctx;
}

// Why the run's output for t cannot be t's values ("" when it can).
std::string size_mismatch(const TensorPlan& t, const std::vector<double>& data, const double* armed_at) {
  if (data.data() != armed_at || static_cast<int64_t>(data.size()) != t.numel)
    return fmt::format("it made the output {} element(s)", data.size());
  if (const std::string breach = reference_guard_breach(data, armed_at, static_cast<size_t>(t.numel)); !breach.empty())
    return "it wrote past the output: " + breach;
  if (const int64_t left = count_unwritten(data); left > 0) return fmt::format("it left {} element(s) of the output unwritten", left);
  return "";
}

// The derived tensors of reference's run, by plan index.
std::vector<size_t> derived_by(const CasePlan& plan, const std::string& reference) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < plan.tensors.size(); ++i)
    if (plan.tensors[i].init.derived() && plan.tensors[i].init.reference == reference) indices.push_back(i);
  return indices;
}

// A run's output rounded into its tensor's device bytes.
void encode_output(const TensorPlan& t, const std::vector<double>& data, std::vector<uint8_t>& bytes) {
  bytes.assign(t.bytes(), 0);
  encode_elements(t.dtype, data.data(), t.numel, bytes.data(), 0);
}

// The run's outputs read back from the cache into packed; false on a miss.
bool read_back(const DerivedRunCache& cache, const std::string& key, const CasePlan& plan, const std::vector<size_t>& indices,
               std::vector<std::vector<uint8_t>>& packed) {
  OutputCounts expected;
  for (const size_t i : indices) expected.emplace_back(plan.tensors[i].init.output, plan.tensors[i].numel);
  std::string note;
  const std::optional<ReferenceOutputs> got = cache.cache->read(key, expected, &note);
  if (!note.empty() && cache.notes) cache.notes->push_back(note);
  if (!got || got->size() != expected.size()) return false;
  for (size_t k = 0; k < indices.size(); ++k) encode_output(plan.tensors[indices[k]], (*got)[k].data, packed[indices[k]]);
  return true;
}

void run_one(const CaseJob& job, std::vector<std::vector<uint8_t>>& packed, const std::string& reference, const DerivedRunCache& cache) {
  const CasePlan& plan = job.plan;
  const std::vector<size_t> indices = derived_by(plan, reference);
  const std::string key = cache.cache && !cache.case_key.empty()
                              ? fmt::format("{:016x}", fnv1a("derived inputs\n" + cache.case_key + "\n" + reference + "\n"))
                              : "";
  if (!key.empty() && read_back(cache, key, plan, indices, packed)) return;
  const std::string who = fmt::format("tensor '{}' (init.reference '{}')", plan.tensors[indices.front()].name, reference);
  ref::Context ctx = forward_context(job, packed, reference);
  std::map<std::string, const double*> armed;
  for (auto& [name, t] : ctx.tensors) armed[name] = t.data.data();
  try {
    enter_case_phase(kPhaseReference);
    (*load_reference(job.reference_library, reference))(ctx);
    enter_case_phase(kPhaseInputs);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: the reference run failed: {}", who, e.what()));
  }
  std::vector<const ref::Tensor*> outputs;  // in plan order, as read_back expects them
  for (const size_t i : indices) {
    const TensorPlan& t = plan.tensors[i];
    const ref::Tensor& out = ctx.tensors.at(t.init.output);
    if (const std::string bad = size_mismatch(t, out.data, armed.at(t.init.output)); !bad.empty())
      throw InputError(fmt::format("tensor '{}', init.output '{}': {} elements expected (the tensor's shape), but reference '{}' "
                                   "does not give that many: {}", t.name, t.init.output, t.numel, reference, bad));
    encode_output(t, out.data, packed[i]);
    outputs.push_back(&out);
  }
  if (!key.empty()) cache.cache->write(key, outputs);
}

}  // namespace

void fill_derived_inputs(const CaseJob& job, std::vector<std::vector<uint8_t>>& packed, const DerivedRunCache& cache) {
  std::vector<std::string> references;  // in the order of the tensors, each once
  for (const TensorPlan& t : job.plan.tensors)
    if (t.init.derived() && std::find(references.begin(), references.end(), t.init.reference) == references.end())
      references.push_back(t.init.reference);
  for (const std::string& reference : references) run_one(job, packed, reference, cache);
}

}  // namespace hk
