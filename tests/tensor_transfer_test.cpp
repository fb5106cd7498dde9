// tensor_transfer.h: a small tensor crosses with its guards in one copy each way, its bytes made
// on the host; a big one is made on the device. Either way the device holds exactly the guards
// and the generator's bytes, and a byte written past a tensor shows in what comes back.
#include <gtest/gtest.h>

#include <memory>

#include "platform/backend.h"
#include "compile/compile_cache.h"
#include "worker/device_inputs.h"
#include "forwarding_backend.h"
#include "refs/generator.h"
#include "check/guard.h"
#include "refs/reference_inputs.h"
#include "worker/tensor_transfer.h"

namespace hk {
namespace {

// The host backend, counting what would each be a wait on a shared GPU.
class CountingBackend : public test::ForwardingBackend {
 public:
  CountingBackend() : ForwardingBackend(open_backend("host", 0, HostOptions{"h100", 2})) {}
  void upload(uint64_t dst, const void* src, size_t bytes) override {
    ++copies;
    ForwardingBackend::upload(dst, src, bytes);
  }
  void download(void* dst, uint64_t src, size_t bytes) override {
    ++copies;
    ForwardingBackend::download(dst, src, bytes);
  }
  void launch(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block, int64_t shared, void** args) override {
    ++launches;
    ForwardingBackend::launch(k, grid, block, shared, args);
  }
  int copies = 0, launches = 0;
};

CaseJob job_of(int64_t in_elements, int64_t out_elements) {
  CaseJob job;
  job.seed = 11;
  TensorPlan in;
  in.name = "x", in.dtype = DType::bf16, in.shape = {in_elements}, in.numel = in_elements, in.role = Role::in;
  in.init = {"normal", {{"std", 2}}};
  TensorPlan out = in;
  out.name = "y", out.dtype = DType::f32, out.shape = {out_elements}, out.numel = out_elements, out.role = Role::out, out.init = {};
  job.plan.tensors = {in, out};
  return job;
}

struct Placed {
  std::vector<uint64_t> ptrs;
  std::vector<BufferGuards> guards;
};

Placed place(Backend& be, const CaseJob& job) {
  Placed p;
  for (size_t i = 0; i < job.plan.tensors.size(); ++i) {
    const size_t bytes = job.plan.tensors[i].bytes();
    const uint64_t base = be.alloc(allocation_bytes(bytes, 0));
    p.ptrs.push_back(base + data_offset(0));
    const AllocationSlack s = be.slack(base);
    p.guards.push_back(buffer_guards(i, base, bytes, s.before, s.after));
  }
  return p;
}

// What a case's tensors hold once put, and that a write past the end of the output shows.
void put_and_take(CountingBackend& be, const CaseJob& job, DeviceInputs* inputs, std::vector<bool> on_device) {
  const Placed p = place(be, job);
  std::vector<std::vector<uint8_t>> initial(job.plan.tensors.size());
  const TensorPlan& in_plan = job.plan.tensors[0];
  if (!on_device[0]) initial[0] = generate_packed(in_plan.init, in_plan.dtype, in_plan.numel, input_seed(job, in_plan));  // as packed_inputs does
  for (size_t i = 0; i < job.plan.tensors.size(); ++i)
    put_tensor(be, job, i, p.ptrs[i], p.guards[i], inputs, on_device, initial, false);
  const TensorPlan& x = job.plan.tensors[0];
  const TensorPlan& y = job.plan.tensors[1];
  const uint8_t past_end = 0x5C;
  be.upload(p.ptrs[1] + y.bytes() + 2, &past_end, 1);  // a kernel's stray store
  const TensorAfterLaunch in = take_tensor(be, x, p.ptrs[0], p.guards[0]);
  const TensorAfterLaunch out = take_tensor(be, y, p.ptrs[1], p.guards[1]);
  EXPECT_EQ(in.before, p.guards[0].before);
  EXPECT_EQ(in.after, p.guards[0].after);
  EXPECT_TRUE(in.bytes.empty()) << "an input's bytes do not come back";
  std::vector<uint8_t> x_bytes(x.bytes());
  be.download(x_bytes.data(), p.ptrs[0], x_bytes.size());
  EXPECT_EQ(x_bytes, generate_packed(x.init, x.dtype, x.numel, input_seed(job, x)));
  EXPECT_EQ(out.bytes, poisoned_buffer(y.dtype, y.numel));
  EXPECT_EQ(out.before, p.guards[1].before);
  const auto hit = check_guard("y", "after", out.after, p.guards[1].after);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->first_offset, 2);
  for (uint64_t ptr : p.ptrs) be.free(ptr - data_offset(0));
}

TEST(TensorTransfer, ASmallTensorCrossesWithItsGuardsInOneCopyEachWay) {
  CountingBackend be;
  const CaseJob job = job_of(100, 7);
  ASSERT_TRUE(travels_whole(job.plan.tensors[0]) && travels_whole(job.plan.tensors[1]));
  // Planned for the device, and still made here: its whole span goes in one copy.
  const Placed p = place(be, job);
  std::vector<bool> on_device = {true, false};
  std::vector<std::vector<uint8_t>> initial(2);
  for (size_t i = 0; i < 2; ++i) put_tensor(be, job, i, p.ptrs[i], p.guards[i], nullptr, on_device, initial, true);
  EXPECT_EQ(be.copies, 2) << "one copy per tensor, guards included";
  EXPECT_EQ(on_device, (std::vector<bool>{false, false}));
  be.copies = 0;
  for (size_t i = 0; i < 2; ++i) take_tensor(be, job.plan.tensors[i], p.ptrs[i], p.guards[i]);
  EXPECT_EQ(be.copies, 2);
  for (uint64_t ptr : p.ptrs) be.free(ptr - data_offset(0));
  put_and_take(be, job, nullptr, {false, false});
}

TEST(TensorTransfer, ABigTensorIsMadeOnTheDevice) {
  CountingBackend be;
  CompileCache cache("");
  DeviceInputs inputs(be, cache, true);
  const CaseJob job = job_of(3 * static_cast<int64_t>(kWholeTransferBytes), static_cast<int64_t>(kWholeTransferBytes));
  ASSERT_FALSE(travels_whole(job.plan.tensors[0]));
  ASSERT_EQ(inputs.tensors_made_here(job.plan), (std::vector<bool>{true, false}));
  put_and_take(be, job, &inputs, {true, false});
  EXPECT_GE(be.launches, 2) << "the generator and the poison ran on the device";
  EXPECT_TRUE(inputs.take_notes().empty());
}

}  // namespace
}  // namespace hk
