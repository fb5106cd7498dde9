// AMD backend: the HIP runtime's module API, loaded with dlopen, and hipRTC (hiprtc_compiler.cpp)
// for the device's target.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>

#include <cstddef>
#include <cstring>
#include <fmt/format.h>

#include "platform/backend.h"
#include "backends/hip_device_props.h"
#include "platform/compiler.h"
#include "platform/dynlib.h"

namespace hk {
namespace {

// The headers this file is built against describe one of the layouts hkcheck reads: they must
// agree with hip_device_props.h on it.
#if HIP_VERSION_MAJOR >= 6
constexpr const HipPropsLayout& kHeaderLayout = kHipPropsR0600;
#else
constexpr const HipPropsLayout& kHeaderLayout = kHipPropsR0000;
#endif
static_assert(sizeof(hipDeviceProp_t) == kHeaderLayout.size);
static_assert(offsetof(hipDeviceProp_t, totalGlobalMem) == kHeaderLayout.total_global_mem);
static_assert(offsetof(hipDeviceProp_t, sharedMemPerBlock) == kHeaderLayout.shared_mem_per_block);
static_assert(offsetof(hipDeviceProp_t, warpSize) == kHeaderLayout.warp_size);
static_assert(offsetof(hipDeviceProp_t, maxThreadsPerBlock) == kHeaderLayout.max_threads_per_block);
static_assert(offsetof(hipDeviceProp_t, maxThreadsDim) == kHeaderLayout.max_threads_dim);
static_assert(offsetof(hipDeviceProp_t, maxGridSize) == kHeaderLayout.max_grid_size);
static_assert(offsetof(hipDeviceProp_t, multiProcessorCount) == kHeaderLayout.multi_processor_count);
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == kHeaderLayout.gcn_arch_name);

// Errors after which the process's device context is unusable: a kernel fault, or a device that
// is gone. Every later call fails the same way, so the case is a CRASH and the worker restarts.
bool is_sticky(hipError_t r) {
  switch (r) {
    case hipErrorIllegalAddress:
    case hipErrorAssert:
    case hipErrorLaunchFailure:
    case hipErrorLaunchTimeOut:
    case hipErrorIllegalState:
    case hipErrorPriorLaunchFailure:
    case hipErrorECCNotCorrectable:
    case hipErrorNoDevice:  // mid-run: the device fell off (at start-up it is BackendUnavailable)
    case hipErrorDeinitialized:
    case hipErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

class HipBackend final : public Backend {
 public:
  explicit HipBackend(int device_index) {
    hip_ = DynLib::open({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"});
    bind_runtime();
    int count = 0;
    const hipError_t r = hipGetDeviceCount_(&count);
    if (r != hipSuccess || count == 0)
      throw BackendUnavailable("the HIP runtime sees no device" + (r != hipSuccess ? ": " + error_text(r) : std::string()));
    if (device_index < 0 || device_index >= count)
      throw BackendUnavailable(fmt::format("--device {} is out of range: the HIP runtime sees {} device(s)", device_index, count));
    device_ = device_index;
    check(hipSetDevice_(device_), "hipSetDevice");
    read_info();
    compiler_ = open_compiler("hip", info_.arch);  // hipRTC for this device's target
    info_.runtime_version += ", " + compiler_->version();
  }

  ~HipBackend() override {
    // Unloading fails only after a sticky fault, which the launch already reported.
    for (hipModule_t m : modules_) (void)hipModuleUnload_(m);
  }

  const DeviceInfo& device() const override { return info_; }

  CompileOutput compile(const CompileRequest& request) override { return compiler_->compile(request); }

  Kernel load(const std::string& binary, const std::string& entry) override {
    hipModule_t mod = nullptr;
    check(hipModuleLoadData_(&mod, binary.data()), "hipModuleLoadData");
    modules_.push_back(mod);
    hipFunction_t fn = nullptr;
    const hipError_t r = hipModuleGetFunction_(&fn, mod, entry.c_str());
    if (r == hipErrorNotFound)
      throw MissingEntry("the compiled module has no kernel named '" + entry +
                         "' (is it declared HK_KERNEL, i.e. extern \"C\" __global__?); hipModuleGetFunction: " + error_text(r));
    check(r, "hipModuleGetFunction(" + entry + ")");
    return fn;
  }

  KernelAttributes attributes(Kernel k) override {
    auto attr = [&](hipFunction_attribute a, const char* what) {
      int v = 0;
      check(hipFuncGetAttribute_(&v, a, static_cast<hipFunction_t>(k)), std::string("hipFuncGetAttribute(") + what + ")");
      return static_cast<int64_t>(v);
    };
    return {attr(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"),
            attr(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES"), attr(HIP_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS")};
  }

  // AMD GPUs give a kernel the whole LDS without opting in; the limit is checked before launch.
  void allow_dynamic_shared(Kernel, int64_t) override {}

  uint64_t alloc(size_t bytes) override {
    void* p = nullptr;
    check(hipMalloc_(&p, bytes ? bytes : 1), fmt::format("hipMalloc({} bytes)", bytes));
    return reinterpret_cast<uint64_t>(p);
  }
  // Fails only after a sticky fault, which the launch already reported (the worker then ends).
  void free(uint64_t ptr) override { (void)hipFree_(reinterpret_cast<void*>(ptr)); }
  void upload(uint64_t dst, const void* src, size_t bytes) override {
    if (bytes) check(hipMemcpyHtoD_(reinterpret_cast<hipDeviceptr_t>(dst), const_cast<void*>(src), bytes), "hipMemcpyHtoD");
  }
  void download(void* dst, uint64_t src, size_t bytes) override {
    if (bytes) check(hipMemcpyDtoH_(dst, reinterpret_cast<hipDeviceptr_t>(src), bytes), "hipMemcpyDtoH");
  }

  void launch(Kernel k, const std::array<int64_t, 3>& g, const std::array<int64_t, 3>& b, int64_t shared,
              void** args) override {
    check(hipModuleLaunchKernel_(static_cast<hipFunction_t>(k), static_cast<unsigned>(g[0]), static_cast<unsigned>(g[1]),
                                 static_cast<unsigned>(g[2]), static_cast<unsigned>(b[0]), static_cast<unsigned>(b[1]),
                                 static_cast<unsigned>(b[2]), static_cast<unsigned>(shared), nullptr, args, nullptr),
          "hipModuleLaunchKernel");
  }
  void synchronize() override { check(hipDeviceSynchronize_(), "hipDeviceSynchronize"); }

  // Each launch between two events on the device's timeline, as the CUDA backend does.
  std::vector<double> time_launches(Kernel k, const std::array<int64_t, 3>& g, const std::array<int64_t, 3>& b, int64_t shared,
                                    void** args, int launches) override {
    struct Event {  // destroyed however the timing ends
      HipBackend* be;
      hipEvent_t e = nullptr;
      ~Event() {
        if (e) (void)be->hipEventDestroy_(e);
      }
    } start{this}, stop{this};
    check(hipEventCreate_(&start.e), "hipEventCreate");
    check(hipEventCreate_(&stop.e), "hipEventCreate");
    std::vector<double> ms;
    for (int i = 0; i < launches; ++i) {
      check(hipEventRecord_(start.e, nullptr), "hipEventRecord");
      launch(k, g, b, shared, args);
      check(hipEventRecord_(stop.e, nullptr), "hipEventRecord");
      check(hipEventSynchronize_(stop.e), "hipEventSynchronize");
      float t = 0;
      check(hipEventElapsedTime_(&t, start.e, stop.e), "hipEventElapsedTime");
      ms.push_back(t);
    }
    return ms;
  }

 private:
  std::string error_text(hipError_t r) const {
    const char* name = hipGetErrorName_ ? hipGetErrorName_(r) : "?";
    const char* text = hipGetErrorString_ ? hipGetErrorString_(r) : "unknown error";
    return fmt::format("{} ({}: {})", text, name, static_cast<int>(r));
  }
  void check(hipError_t r, const std::string& call) const {
    if (r != hipSuccess) throw BackendError(call + " failed: " + error_text(r), is_sticky(r));
  }

  template <typename F>
  void bind(const DynLib& lib, F& fn, const char* name) {
    fn = lib.get<F>(name);
  }
  void bind_runtime() {
    bind(*hip_, hipGetErrorName_, "hipGetErrorName");
    bind(*hip_, hipGetErrorString_, "hipGetErrorString");
    bind(*hip_, hipGetDeviceCount_, "hipGetDeviceCount");
    bind(*hip_, hipSetDevice_, "hipSetDevice");
    bind(*hip_, hipDeviceGetAttribute_, "hipDeviceGetAttribute");
    bind(*hip_, hipDeviceGetName_, "hipDeviceGetName");
    bind(*hip_, hipDeviceTotalMem_, "hipDeviceTotalMem");
    bind(*hip_, hipDriverGetVersion_, "hipDriverGetVersion");
    bind(*hip_, hipRuntimeGetVersion_, "hipRuntimeGetVersion");
    bind(*hip_, hipModuleLoadData_, "hipModuleLoadData");
    bind(*hip_, hipModuleUnload_, "hipModuleUnload");
    bind(*hip_, hipModuleGetFunction_, "hipModuleGetFunction");
    bind(*hip_, hipFuncGetAttribute_, "hipFuncGetAttribute");
    bind(*hip_, hipMalloc_, "hipMalloc");
    bind(*hip_, hipFree_, "hipFree");
    bind(*hip_, hipMemcpyHtoD_, "hipMemcpyHtoD");
    bind(*hip_, hipMemcpyDtoH_, "hipMemcpyDtoH");
    bind(*hip_, hipModuleLaunchKernel_, "hipModuleLaunchKernel");
    bind(*hip_, hipEventCreate_, "hipEventCreate");
    bind(*hip_, hipEventDestroy_, "hipEventDestroy");
    bind(*hip_, hipEventRecord_, "hipEventRecord");
    bind(*hip_, hipEventSynchronize_, "hipEventSynchronize");
    bind(*hip_, hipEventElapsedTime_, "hipEventElapsedTime");
    bind(*hip_, hipDeviceSynchronize_, "hipDeviceSynchronize");
  }

  // The device's properties, in the newest layout the library fills (hip_device_props.h).
  struct Properties {
    const HipPropsLayout* layout;
    std::vector<unsigned char> bytes;
  };
  Properties read_properties() {
    using Fill = hipError_t (*)(void*, int);
    const HipPropsLayout* layout = &kHipPropsR0600;
    auto fill = reinterpret_cast<Fill>(hip_->try_symbol(layout->function));
    if (!fill) {  // ROCm 5
      layout = &kHipPropsR0000;
      fill = hip_->get<Fill>(layout->function);
    }
    // Room beyond the layout, so that a runtime writing more than its own header says costs nothing.
    std::vector<unsigned char> bytes(layout->size + 1024, 0);
    check(fill(bytes.data(), device_), layout->function);
    return {layout, std::move(bytes)};
  }

  void read_info() {
    auto attr = [&](hipDeviceAttribute_t a, const char* what) {
      int v = 0;
      check(hipDeviceGetAttribute_(&v, a, device_), std::string("hipDeviceGetAttribute(") + what + ")");
      return static_cast<int64_t>(v);
    };
    char name[256] = {};
    check(hipDeviceGetName_(name, sizeof name, device_), "hipDeviceGetName");
    size_t mem = 0;
    check(hipDeviceTotalMem_(&mem, device_), "hipDeviceTotalMem");
    int drv = 0, rt = 0;
    check(hipDriverGetVersion_(&drv), "hipDriverGetVersion");
    check(hipRuntimeGetVersion_(&rt), "hipRuntimeGetVersion");
    const Properties props = read_properties();
    const std::string gcn_arch = hip_prop_text(props.bytes.data(), props.layout->gcn_arch_name);
    info_.backend = "hip";
    info_.name = name;
    info_.arch = gcn_arch.substr(0, gcn_arch.find(':'));  // "gfx942:sramecc+:xnack-" -> "gfx942"
    if (info_.arch.rfind("gfx", 0) != 0)
      throw BackendUnavailable(fmt::format("{} gave no gfx architecture name (gcnArchName '{}')", props.layout->function, gcn_arch));
    info_.driver_version = fmt::format("HIP driver {}", drv);
    info_.runtime_version = fmt::format("HIP runtime {}", rt);
    info_.max_threads_per_block = attr(hipDeviceAttributeMaxThreadsPerBlock, "MaxThreadsPerBlock");
    info_.max_block = {attr(hipDeviceAttributeMaxBlockDimX, "MaxBlockDimX"), attr(hipDeviceAttributeMaxBlockDimY, "MaxBlockDimY"),
                       attr(hipDeviceAttributeMaxBlockDimZ, "MaxBlockDimZ")};
    info_.max_grid = {attr(hipDeviceAttributeMaxGridDimX, "MaxGridDimX"), attr(hipDeviceAttributeMaxGridDimY, "MaxGridDimY"),
                      attr(hipDeviceAttributeMaxGridDimZ, "MaxGridDimZ")};
    info_.shared_per_block = attr(hipDeviceAttributeMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock");
    int optin = 0;  // CUDA-only attribute: AMD reports 0 or fails; the plain limit is the real one
    if (hipDeviceGetAttribute_(&optin, hipDeviceAttributeSharedMemPerBlockOptin, device_) != hipSuccess) optin = 0;
    info_.shared_per_block_optin = std::max<int64_t>(optin, info_.shared_per_block);
    info_.total_memory = static_cast<int64_t>(mem);
    info_.multiprocessors = attr(hipDeviceAttributeMultiprocessorCount, "MultiprocessorCount");
    info_.warp_size = attr(hipDeviceAttributeWarpSize, "WarpSize");
    // Properties read in the wrong layout would not agree with the attributes.
    const int prop_warp = hip_prop<int>(props.bytes.data(), props.layout->warp_size);
    const int prop_threads = hip_prop<int>(props.bytes.data(), props.layout->max_threads_per_block);
    if (prop_warp != info_.warp_size || prop_threads != info_.max_threads_per_block)
      throw BackendUnavailable(fmt::format("{} and hipDeviceGetAttribute disagree (warpSize {} vs {}, maxThreadsPerBlock {} vs {}): "
                                           "the properties are not in the layout hkcheck reads them in",
                                           props.layout->function, prop_warp, info_.warp_size, prop_threads, info_.max_threads_per_block));
  }

  std::unique_ptr<DynLib> hip_;
  std::unique_ptr<Compiler> compiler_;
  int device_ = 0;
  std::vector<hipModule_t> modules_;
  DeviceInfo info_;

  const char* (*hipGetErrorName_)(hipError_t) = nullptr;
  const char* (*hipGetErrorString_)(hipError_t) = nullptr;
  hipError_t (*hipGetDeviceCount_)(int*) = nullptr;
  hipError_t (*hipSetDevice_)(int) = nullptr;
  hipError_t (*hipDeviceGetAttribute_)(int*, hipDeviceAttribute_t, int) = nullptr;
  hipError_t (*hipDeviceGetName_)(char*, int, hipDevice_t) = nullptr;
  hipError_t (*hipDeviceTotalMem_)(size_t*, hipDevice_t) = nullptr;
  hipError_t (*hipDriverGetVersion_)(int*) = nullptr;
  hipError_t (*hipRuntimeGetVersion_)(int*) = nullptr;
  hipError_t (*hipModuleLoadData_)(hipModule_t*, const void*) = nullptr;
  hipError_t (*hipModuleUnload_)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction_)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*hipFuncGetAttribute_)(int*, hipFunction_attribute, hipFunction_t) = nullptr;
  hipError_t (*hipMalloc_)(void**, size_t) = nullptr;
  hipError_t (*hipFree_)(void*) = nullptr;
  hipError_t (*hipMemcpyHtoD_)(hipDeviceptr_t, void*, size_t) = nullptr;
  hipError_t (*hipMemcpyDtoH_)(void*, hipDeviceptr_t, size_t) = nullptr;
  hipError_t (*hipModuleLaunchKernel_)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                       hipStream_t, void**, void**) = nullptr;
  hipError_t (*hipDeviceSynchronize_)() = nullptr;
  hipError_t (*hipEventCreate_)(hipEvent_t*) = nullptr;
  hipError_t (*hipEventDestroy_)(hipEvent_t) = nullptr;
  hipError_t (*hipEventRecord_)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*hipEventSynchronize_)(hipEvent_t) = nullptr;
  hipError_t (*hipEventElapsedTime_)(float*, hipEvent_t, hipEvent_t) = nullptr;

};

}  // namespace

std::unique_ptr<Backend> open_hip_backend(int device) { return std::make_unique<HipBackend>(device); }

}  // namespace hk
