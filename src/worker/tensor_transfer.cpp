#include "worker/tensor_transfer.h"

#include <cstring>

#include "util/first_touch.h"
#include "refs/generator.h"
#include "refs/reference_inputs.h"

namespace hk {
namespace {

// The whole span of a tensor's allocation that the guards frame: they are adjacent to its bytes.
size_t span_bytes(const TensorPlan& t, const BufferGuards& g) { return g.before.size() + t.bytes() + g.after.size(); }

// Input i's bytes made here where it was left to the device: its kind proved element-wise when
// the case was planned, so this cannot throw.
void make_here(const CaseJob& job, size_t i, std::vector<bool>& on_device, std::vector<std::vector<uint8_t>>& initial) {
  if (!on_device[i]) return;
  const TensorPlan& t = job.plan.tensors[i];
  on_device[i] = false;
  initial[i] = generate_packed(t.init, t.dtype, t.numel, input_seed(job, t));
}

}  // namespace

bool travels_whole(const TensorPlan& t) { return t.bytes() <= kWholeTransferBytes; }

void put_tensor(Backend& be, const CaseJob& job, size_t i, uint64_t ptr, const BufferGuards& guards, DeviceInputs* device_inputs,
                std::vector<bool>& on_device, std::vector<std::vector<uint8_t>>& initial, bool host_reads) {
  const TensorPlan& t = job.plan.tensors[i];
  if (travels_whole(t)) {
    make_here(job, i, on_device, initial);
    if (t.role == Role::out && initial[i].empty()) initial[i] = poisoned_buffer(t.dtype, t.numel);
    std::vector<uint8_t> span(span_bytes(t, guards));
    std::memcpy(span.data(), guards.before.data(), guards.before.size());
    if (t.bytes() > 0) std::memcpy(span.data() + guards.before.size(), initial[i].data(), t.bytes());
    std::memcpy(span.data() + guards.before.size() + t.bytes(), guards.after.data(), guards.after.size());
    be.upload(guards.before_at, span.data(), span.size());
    return;
  }
  be.upload(guards.before_at, guards.before.data(), guards.before.size());
  be.upload(guards.after_at, guards.after.data(), guards.after.size());
  if (t.role == Role::out) {
    if (device_inputs && device_inputs->poison(t, ptr)) return;
    if (initial[i].empty()) initial[i] = poisoned_buffer(t.dtype, t.numel);
  } else if (on_device[i] && device_inputs->make(t, input_seed(job, t), ptr)) {
    if (host_reads) {
      initial[i].resize(t.bytes());
      be.download(initial[i].data(), ptr, initial[i].size());
    }
    return;
  }
  make_here(job, i, on_device, initial);
  be.upload(ptr, initial[i].data(), t.bytes());
}

TensorAfterLaunch take_tensor(Backend& be, const TensorPlan& t, uint64_t ptr, const BufferGuards& guards) {
  TensorAfterLaunch a;
  const bool with_bytes = t.role != Role::in;
  if (travels_whole(t)) {
    std::vector<uint8_t> span(span_bytes(t, guards));
    be.download(span.data(), guards.before_at, span.size());
    const auto bytes_at = span.begin() + static_cast<ptrdiff_t>(guards.before.size());
    a.before.assign(span.begin(), bytes_at);
    if (with_bytes) a.bytes.assign(bytes_at, bytes_at + static_cast<ptrdiff_t>(t.bytes()));
    a.after.assign(bytes_at + static_cast<ptrdiff_t>(t.bytes()), span.end());
    return a;
  }
  a.before.resize(guards.before.size());
  a.after.resize(guards.after.size());
  be.download(a.before.data(), guards.before_at, a.before.size());
  be.download(a.after.data(), guards.after_at, a.after.size());
  if (with_bytes) {
    a.bytes = touched_vector<uint8_t>(t.bytes());
    be.download(a.bytes.data(), ptr, a.bytes.size());
  }
  return a;
}

}  // namespace hk
