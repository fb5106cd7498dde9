// How a case's tensors reach the device before a launch, with their guard regions (guard.h), and
// what comes back after it. On a GPU shared by several workers every synchronous copy or launch
// waits for the GPU's turn: a small tensor with its own guard copies, generator launch and
// downloads cost six such waits, more than a small kernel. A small tensor therefore travels
// whole (leading guard, bytes, trailing guard: adjacent in its allocation) in one copy each way,
// its bytes made on the host; a big one is made on the device (device_inputs.h) and only its
// guards and outputs cross.
#pragma once

#include <cstdint>
#include <vector>

#include "platform/backend.h"
#include "contracts/case_job.h"
#include "worker/device_inputs.h"
#include "check/guard.h"

namespace hk {

// Up to this many bytes a tensor travels whole; its host bytes cost microseconds to make.
constexpr size_t kWholeTransferBytes = size_t{64} << 10;

// Whether tensor t travels whole (guard.h's allocation layout around it).
bool travels_whole(const TensorPlan& t);

// The bytes of tensor i and its guards, put at ptr before a launch. A tensor made on the device
// (on_device[i]) is made there, an output poisoned there, unless it travels whole or the device
// cannot: then on_device[i] turns false and the bytes are made here. initial[i] holds the bytes of an input or inout not
// made on the device (packed_inputs, reference_inputs.h) and gets those the host makes here;
// when the host reads them (host_reads), a tensor made on the device is downloaded into it before
// any kernel can touch it.
void put_tensor(Backend& be, const CaseJob& job, size_t i, uint64_t ptr, const BufferGuards& guards, DeviceInputs* device_inputs,
                std::vector<bool>& on_device, std::vector<std::vector<uint8_t>>& initial, bool host_reads);

// What a launch left in tensor i's guards and, for an output or inout, in the tensor itself
// (empty for an input).
struct TensorAfterLaunch {
  std::vector<uint8_t> before, after, bytes;
};
TensorAfterLaunch take_tensor(Backend& be, const TensorPlan& t, uint64_t ptr, const BufferGuards& guards);

}  // namespace hk
