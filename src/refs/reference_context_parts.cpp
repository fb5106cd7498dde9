#include "refs/reference_context_parts.h"

#include "model/dtype.h"
#include "refs/generator.h"
#include "refs/reference_threads.h"
#include "refs/runtime_references.h"  // round_for_reference
#include "util/first_touch.h"
#include "util/parallel_for.h"

namespace hk {

ref::Context context_with_params(const CasePlan& plan) {
  ref::Context ctx;
  ctx.round_dtype = round_for_reference;
  ctx.threads = reference_threads();
  for (const auto& [name, v] : plan.params) {
    if (const auto* d = std::get_if<double>(&v)) ctx.numbers[name] = *d;
    else ctx.strings[name] = std::get<std::string>(v);
  }
  return ctx;
}

void decode_tensor(const TensorPlan& t, const std::vector<uint8_t>& bytes, std::vector<double>& v) {
  if (static_cast<int64_t>(v.size()) != t.numel) v = touched_vector<double>(static_cast<size_t>(t.numel));
  parallel_chunks(t.numel, kElementChunk, [&](int64_t, int64_t begin, int64_t end) {
    decode_elements(t.dtype, bytes.data(), begin, end - begin, v.data() + begin);
  });
}

}  // namespace hk
