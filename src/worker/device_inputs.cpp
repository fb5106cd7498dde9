#include "worker/device_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "refs/generator.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

constexpr const char* kEntry = "hk_generate_inputs";
constexpr const char* kFillEntry = "hk_fill_units";
constexpr int kPoisonKind = -1;  // proven_'s kind for a dtype's poison
constexpr int64_t kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 16;  // the rest by a grid-stride loop
// Elements compared with the host's at each end of a tensor the first time a (kind, dtype) is made.
constexpr int64_t kProofWindow = int64_t{1} << 15;

// The kernels store whole elements (or poison units): a tensor placed off its element's
// alignment (offset_bytes) would fault on a GPU, so it is left to the host and uploaded.
bool aligned_for(const TensorPlan& t, uint64_t ptr) { return ptr % dtype_size(t.dtype) == 0; }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// HKCHECK_DEVICE_INPUTS=0 makes every input on the CPU: what the speed bench compares with.
bool device_inputs_allowed() {
  const char* v = std::getenv("HKCHECK_DEVICE_INPUTS");
  return !(v && std::strcmp(v, "0") == 0);
}

}  // namespace

CompileRequest input_generator_request(const std::string& backend) {
  CompileRequest q;
  q.source = "#include \"hkcheck.h\"\n#include \"hk_input_generator.h\"\n";
  q.source_name = "hkcheck_input_generator.cu";
  // No multiply-add fused into one rounding: the host's arithmetic, operation by operation.
  const BackendRow* row = find_backend(backend);
  q.options = {row ? row->exact_float_option : "-ffp-contract=off"};
  q.entries = {kEntry, kFillEntry};
  return q;
}

DeviceInputs::DeviceInputs(Backend& be, CompileCache& cache, bool on_the_host_backend)
    : be_(be), cache_(cache), on_host_(on_the_host_backend) {}

void DeviceInputs::turn_off(const std::string& why) {
  off_ = why;
  kernel_ = nullptr;
  notes_.push_back("inputs are generated on the CPU from here on in this worker: " + why);
}

std::vector<std::string> DeviceInputs::take_notes() { return std::exchange(notes_, {}); }

bool DeviceInputs::ready() {
  if (tried_) return kernel_ != nullptr;
  tried_ = true;
  const std::string backend = be_.device().backend;
  const BackendRow* row = find_backend(backend);
  if (!row || (row->cpu && !on_host_)) return false;  // the host backend's device is the CPU already
  if (!device_inputs_allowed()) return false;
  bool cached = false;
  std::string key;
  const CompileOutput out = cache_.get(be_, input_generator_request(backend), &cached, &key);
  if (!out.ok) {
    turn_off("the input generator did not compile: " + first_line(out.log));
    return false;
  }
  auto symbol = [&](const char* entry) {
    const auto it = out.symbols.find(entry);
    return it == out.symbols.end() ? std::string(entry) : it->second;
  };
  try {
    kernel_ = cache_.load(be_, key, out.binary, symbol(kEntry));
    fill_ = cache_.load(be_, key, out.binary, symbol(kFillEntry));
  } catch (const BackendError& e) {
    if (e.sticky) throw;
    turn_off(std::string("the input generator did not load: ") + e.what());
  } catch (const MissingEntry& e) {
    turn_off(std::string("the input generator did not load: ") + e.what());
  }
  return kernel_ != nullptr && fill_ != nullptr;
}

// Launches k over `threads` threads (a grid-stride loop takes the rest) and waits for it.
bool DeviceInputs::run(Backend::Kernel k, int64_t threads, void** args) {
  const int64_t blocks = std::clamp<int64_t>((threads + kThreads - 1) / kThreads, 1, kMaxBlocks);
  try {
    be_.launch(k, {blocks, 1, 1}, {kThreads, 1, 1}, 0, args);
    be_.synchronize();
  } catch (const BackendError& e) {
    if (e.sticky) throw BackendError(std::string("hkcheck's input generator failed: ") + e.what(), true);
    turn_off(std::string("its launch failed: ") + e.what());
    return false;
  }
  return true;
}

std::vector<bool> DeviceInputs::tensors_made_here(const CasePlan& plan) {
  std::vector<bool> here(plan.tensors.size(), false);
  if (!ready()) return here;
  for (const TensorPlan& t : plan.tensors)
    if (t.role != Role::out && t.init.derived()) return here;  // made from the others, which the host then needs
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    if (t.role == Role::out || t.numel <= 0) continue;
    try {
      here[i] = elementwise_generator(t.init).has_value();
    } catch (const std::exception&) {  // a bad plan: the host generator says what is wrong
      here[i] = false;
    }
  }
  return here;
}

bool DeviceInputs::make(const TensorPlan& t, uint64_t seed, uint64_t ptr) {
  if (!ready() || !aligned_for(t, ptr)) return false;
  const ElementwiseGenerator g = *elementwise_generator(t.init);
  unsigned char* out = reinterpret_cast<unsigned char*>(ptr);
  long long n = t.numel;
  unsigned long long s = seed;
  int kind = static_cast<int>(g.kind), dtype = static_cast<int>(t.dtype), has_mod = g.has_mod ? 1 : 0;
  double a = g.a, b = g.b, c = g.c;
  void* args[] = {&out, &n, &s, &kind, &dtype, &a, &b, &c, &has_mod, nullptr};
  if (!run(kernel_, (t.numel + 1) / 2, args)) return false;
  if (proven_.count({kind, dtype})) return true;
  if (!proves_itself(t, seed, ptr)) return false;
  proven_.insert({kind, dtype});
  return true;
}

bool DeviceInputs::poison(const TensorPlan& t, uint64_t ptr) {
  if (!ready() || !aligned_for(t, ptr)) return false;
  const int unit = static_cast<int>(dtype_size(t.dtype));
  long long units = static_cast<long long>(storage_bytes(t.dtype, t.numel)) / unit;  // a packed dtype's bytes are poisoned whole
  unsigned long long bits = 0;
  write_poison(t.dtype, &bits);  // little-endian: the unit's bytes are the low ones
  unsigned char* out = reinterpret_cast<unsigned char*>(ptr);
  int unit_arg = unit;
  void* args[] = {&out, &units, &bits, &unit_arg, nullptr};
  if (units > 0 && !run(fill_, units, args)) return false;
  if (units == 0 || proven_.count({kPoisonKind, static_cast<int>(t.dtype)})) return true;
  if (!poison_proves_itself(t, ptr)) return false;
  proven_.insert({kPoisonKind, static_cast<int>(t.dtype)});
  return true;
}

// Every unit of the output's first and last bytes holds the poison the host would have laid.
bool DeviceInputs::poison_proves_itself(const TensorPlan& t, uint64_t ptr) {
  const size_t unit = dtype_size(t.dtype), bytes = storage_bytes(t.dtype, t.numel);
  const size_t window = std::min(bytes, static_cast<size_t>(kProofWindow) * unit) / unit * unit;
  for (const size_t at : {size_t{0}, (bytes - window) / unit * unit}) {
    std::vector<uint8_t> got(window);
    be_.download(got.data(), ptr + at, got.size());
    for (size_t u = 0; u < window; u += unit)
      if (!is_poison(t.dtype, got.data() + u)) {
        turn_off(fmt::format("the GPU poisoned output '{}' ({}, {} elements) with other bytes than the CPU at byte {}", t.name,
                             dtype_name(t.dtype), t.numel, at + u));
        return false;
      }
  }
  return true;
}

// The tensor's first and last elements as the device made them, against the host generator's.
bool DeviceInputs::proves_itself(const TensorPlan& t, uint64_t seed, uint64_t ptr) {
  const ElementwiseGenerator g = *elementwise_generator(t.init);
  const int64_t n = t.numel;
  std::vector<std::pair<int64_t, int64_t>> windows;  // [first, end), first even
  if (n <= 2 * kProofWindow) windows.push_back({0, n});
  else windows = {{0, kProofWindow}, {(n - kProofWindow) & ~int64_t{1}, n}};
  for (const auto& [first, end] : windows) {
    const std::vector<uint8_t> host = generate_packed_range(g, t.dtype, first, end - first, seed);
    std::vector<uint8_t> device(host.size());
    be_.download(device.data(), ptr + storage_bytes(t.dtype, first), device.size());
    const auto diff = std::mismatch(host.begin(), host.end(), device.begin());
    if (diff.first != host.end()) {
      turn_off(fmt::format("the GPU made tensor '{}' ({} {}, {} elements) with byte {} = {:#04x} where the CPU makes {:#04x}", t.name,
                           t.init.kind, dtype_name(t.dtype), n, storage_bytes(t.dtype, first) + (diff.first - host.begin()),
                           static_cast<unsigned>(*diff.second), static_cast<unsigned>(*diff.first)));
      return false;
    }
  }
  return true;
}

}  // namespace hk
