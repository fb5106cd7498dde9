// Inputs made on the GPU itself. A tensor of an element-wise generator kind (normal, uniform,
// int, arange, constant) is written straight into its device buffer by hkcheck's own kernel
// (prelude/hk_input_generator.h), with the host generator's arithmetic and rounding, instead of
// being generated on the CPU and uploaded: a warm run of big cases then costs the GPU
// milliseconds where the CPU spent seconds. The host still gets the bytes of an input it reads
// (the reference on a cache miss, a check that looks at an input) by downloading them before the
// kernel runs.
//
// Outputs are poisoned on the device the same way (a fill of their dtype's poison pattern).
//
// Trust: the first time a worker makes a (kind, dtype) or a dtype's poison, the device's bytes are compared with the
// host generator's at the tensor's start and end; one differing byte turns the device generator
// off for the rest of the worker (the inputs come from the CPU again) with a note in the case.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "platform/backend.h"
#include "model/case_plan.h"
#include "compile/compile_cache.h"

namespace hk {

class DeviceInputs {
 public:
  // on_the_host_backend: make them with the host backend too (its kernels run on the CPU, so a
  // run never asks for it; tests do, to run the generator kernel where no GPU is).
  DeviceInputs(Backend& be, CompileCache& cache, bool on_the_host_backend = false);

  // Which tensors of the plan this device makes: in and inout tensors of an element-wise kind
  // with a valid plan, none when a tensor of the plan is derived from the others
  // (derived_inputs.h) or the generator is off.
  std::vector<bool> tensors_made_here(const CasePlan& plan);
  // Makes t's values for seed at device address ptr (t.numel elements in t's dtype): true when
  // they are there; false when the generator is (now) off or ptr is not aligned to t's element
  // (a misaligned tensor), and the caller uploads the host's.
  bool make(const TensorPlan& t, uint64_t seed, uint64_t ptr);
  // Poisons output t at ptr on the device (every storage unit its dtype's poison, dtype.h): true
  // when done; false when the generator is off or ptr is misaligned, and the caller uploads the
  // host's poison.
  bool poison(const TensorPlan& t, uint64_t ptr);
  // The notes the last calls left (the generator failed to build or to prove itself), taken once.
  std::vector<std::string> take_notes();

 private:
  bool ready();
  bool proves_itself(const TensorPlan& t, uint64_t seed, uint64_t ptr);
  bool poison_proves_itself(const TensorPlan& t, uint64_t ptr);
  bool run(Backend::Kernel k, int64_t threads, void** args);
  void turn_off(const std::string& why);

  Backend& be_;
  CompileCache& cache_;
  bool on_host_ = false;
  bool tried_ = false;
  Backend::Kernel kernel_ = nullptr;
  Backend::Kernel fill_ = nullptr;
  std::string off_;                      // why the generator is off; "" while it is on
  std::set<std::pair<int, int>> proven_;  // (kind, dtype) checked against the host; kind -1: the poison
  std::vector<std::string> notes_;
};

// What the generator kernel is compiled from, and with which options for a backend ("cuda",
// "hip"): also what tests compile.
CompileRequest input_generator_request(const std::string& backend);

}  // namespace hk
