// NVIDIA backend: the CUDA driver API, loaded with dlopen, and NVRTC (nvrtc_compiler.cpp) for the
// device's target. Every call's result is checked; a failure names the call and carries the
// driver's own error text.
#include <cuda.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

#include "platform/backend.h"
#include "platform/compiler.h"
#include "platform/dynlib.h"

namespace hk {
namespace {

// Fills `words` 32-bit words of its dynamic shared memory with all bits set (Backend::poison_shared).
// PTX, so the driver builds it for any GPU without a compiler in the worker; volatile, so no
// compiler drops stores that nothing reads.
constexpr const char* kPoisonSharedPtx =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n"
    ".extern .shared .align 16 .b8 hk_poison_smem[];\n"
    "\n"
    ".visible .entry hk_poison_shared(.param .u32 hk_poison_words)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  ld.param.u32 %r1, [hk_poison_words];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, hk_poison_smem;\n"
    "  mov.u32 %r7, -1;\n"
    "$L_loop:\n"
    "  setp.ge.u32 %p1, %r2, %r1;\n"
    "  @%p1 bra $L_done;\n"
    "  shl.b32 %r5, %r2, 2;\n"
    "  add.s32 %r6, %r4, %r5;\n"
    "  st.volatile.shared.u32 [%r6], %r7;\n"
    "  add.s32 %r2, %r2, %r3;\n"
    "  bra.uni $L_loop;\n"
    "$L_done:\n"
    "  ret;\n"
    "}\n";

// Driver errors after which the context is unusable: faults raised by a running kernel.
bool is_sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device_index) {
    cuda_ = DynLib::open({"libcuda.so.1", "libcuda.so"});
    bind_driver();
    const CUresult init = cuInit_(0);
    if (init != CUDA_SUCCESS) throw BackendUnavailable("cuInit failed: " + error_text(init) + " (no NVIDIA GPU or driver?)");
    int count = 0;
    check(cuDeviceGetCount_(&count), "cuDeviceGetCount");
    if (count == 0) throw BackendUnavailable("the CUDA driver sees no device");
    if (device_index < 0 || device_index >= count)
      throw BackendUnavailable(fmt::format("--device {} is out of range: the CUDA driver sees {} device(s)", device_index, count));
    check(cuDeviceGet_(&dev_, device_index), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain_(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent_(ctx_), "cuCtxSetCurrent");
    read_info();
    compiler_ = open_compiler("cuda", info_.arch);  // NVRTC for this device's target
    info_.runtime_version = compiler_->version();
  }

  ~CudaBackend() override {
    // Unloading fails only after a sticky fault, which the launch already reported.
    for (CUmodule m : modules_) (void)cuModuleUnload_(m);
    if (ctx_) (void)cuDevicePrimaryCtxRelease_(dev_);
  }

  const DeviceInfo& device() const override { return info_; }

  CompileOutput compile(const CompileRequest& request) override { return compiler_->compile(request); }

  Kernel load(const std::string& binary, const std::string& entry) override {
    CUmodule mod = nullptr;
    check(cuModuleLoadData_(&mod, binary.data()), "cuModuleLoadData");
    modules_.push_back(mod);
    CUfunction fn = nullptr;
    const CUresult r = cuModuleGetFunction_(&fn, mod, entry.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      throw MissingEntry("the compiled module has no kernel named '" + entry +
                         "' (is it declared HK_KERNEL, i.e. extern \"C\" __global__?)");
    check(r, "cuModuleGetFunction(" + entry + ")");
    return fn;
  }

  KernelAttributes attributes(Kernel k) override {
    auto attr = [&](CUfunction_attribute a, const char* what) {
      int v = 0;
      check(cuFuncGetAttribute_(&v, a, static_cast<CUfunction>(k)), std::string("cuFuncGetAttribute(") + what + ")");
      return static_cast<int64_t>(v);
    };
    return {attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"),
            attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES"), attr(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS")};
  }

  // Sizes only (CUDA 12.4 drivers on): an i32 for an int64_t, a f64 for a float or a wrong count
  // shows; an i32 for a float does not. An index past the last parameter is CUDA_ERROR_INVALID_VALUE,
  // which compute-sanitizer reports as the program's error: counted by cuFuncGetParamCount where
  // the driver has it; under a tool without it, only the passed arguments' slots are asked about
  // (a parameter the manifest omits then goes unseen there; the run without the tool saw it).
  std::optional<std::vector<KernelParam>> parameters(Kernel k, size_t passed) override {
    if (!cuFuncGetParamInfo_) return std::nullopt;
    const auto fn = static_cast<CUfunction>(k);
    size_t count = 32768;  // a kernel's parameters take at most 32764 bytes
    if (cuFuncGetParamCount_) check(cuFuncGetParamCount_(fn, &count), "cuFuncGetParamCount");
    else if (under_tool_) count = passed;
    std::vector<KernelParam> params;
    for (size_t i = 0; i < count; ++i) {
      size_t offset = 0, size = 0;
      const CUresult r = cuFuncGetParamInfo_(fn, i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE && !cuFuncGetParamCount_) break;
      check(r, fmt::format("cuFuncGetParamInfo(parameter {})", i));
      params.push_back(KernelParam{ParamKind::unknown, size, ""});
    }
    return params;
  }

  void poison_shared() override {
    if (!poisoner_) {
      CUmodule mod = nullptr;
      check(cuModuleLoadData_(&mod, kPoisonSharedPtx), "cuModuleLoadData(shared-memory poison)");
      modules_.push_back(mod);
      check(cuModuleGetFunction_(&poisoner_, mod, "hk_poison_shared"), "cuModuleGetFunction(hk_poison_shared)");
      allow_dynamic_shared(poisoner_, info_.shared_per_block_optin);
    }
    // One block of all the shared memory a block may have on each SM, twice over.
    unsigned words = static_cast<unsigned>(info_.shared_per_block_optin / 4);
    void* args[] = {&words, nullptr};
    launch(poisoner_, {2 * std::max<int64_t>(info_.multiprocessors, 1), 1, 1}, {std::min<int64_t>(info_.max_threads_per_block, 1024), 1, 1},
           info_.shared_per_block_optin, args);
  }

  void allow_dynamic_shared(Kernel k, int64_t bytes) override {
    check(cuFuncSetAttribute_(static_cast<CUfunction>(k), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }

  uint64_t alloc(size_t bytes) override {
    CUdeviceptr p = 0;
    check(cuMemAlloc_(&p, bytes ? bytes : 1), fmt::format("cuMemAlloc({} bytes)", bytes));
    return p;
  }
  // Fails only after a sticky fault, which the launch already reported (the worker then ends).
  void free(uint64_t ptr) override { (void)cuMemFree_(static_cast<CUdeviceptr>(ptr)); }
  void upload(uint64_t dst, const void* src, size_t bytes) override {
    if (bytes) check(cuMemcpyHtoD_(static_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
  }
  void download(void* dst, uint64_t src, size_t bytes) override {
    if (bytes) check(cuMemcpyDtoH_(dst, static_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
  }

  void launch(Kernel k, const std::array<int64_t, 3>& g, const std::array<int64_t, 3>& b, int64_t shared,
              void** args) override {
    check(cuLaunchKernel_(static_cast<CUfunction>(k), static_cast<unsigned>(g[0]), static_cast<unsigned>(g[1]),
                          static_cast<unsigned>(g[2]), static_cast<unsigned>(b[0]), static_cast<unsigned>(b[1]),
                          static_cast<unsigned>(b[2]), static_cast<unsigned>(shared), nullptr, args, nullptr),
          "cuLaunchKernel");
  }
  void synchronize() override { check(cuCtxSynchronize_(), "cuCtxSynchronize"); }

  std::vector<double> time_launches(Kernel k, const std::array<int64_t, 3>& g, const std::array<int64_t, 3>& b, int64_t shared,
                                    void** args, int launches) override {
    struct Event {  // destroyed however the timing ends
      CudaBackend* be;
      CUevent e = nullptr;
      ~Event() {
        if (e) (void)be->cuEventDestroy_(e);
      }
    } start{this}, stop{this};
    check(cuEventCreate_(&start.e, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate_(&stop.e, CU_EVENT_DEFAULT), "cuEventCreate");
    std::vector<double> ms;
    for (int i = 0; i < launches; ++i) {
      check(cuEventRecord_(start.e, nullptr), "cuEventRecord");
      launch(k, g, b, shared, args);
      check(cuEventRecord_(stop.e, nullptr), "cuEventRecord");
      check(cuEventSynchronize_(stop.e), "cuEventSynchronize");
      float t = 0;
      check(cuEventElapsedTime_(&t, start.e, stop.e), "cuEventElapsedTime");
      ms.push_back(t);
    }
    return ms;
  }

 private:
  std::string error_text(CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuGetErrorName_) cuGetErrorName_(r, &name);
    if (cuGetErrorString_) cuGetErrorString_(r, &text);
    return fmt::format("{} ({}: {})", text ? text : "unknown error", name ? name : "?", static_cast<int>(r));
  }
  void check(CUresult r, const std::string& call) const {
    if (r != CUDA_SUCCESS) throw BackendError(call + " failed: " + error_text(r), is_sticky(r));
  }

  void bind_driver() {
    // Versioned names: cuda.h maps e.g. cuMemAlloc to cuMemAlloc_v2; dlsym needs the real symbol.
    cuGetErrorName_ = cuda_->get<decltype(cuGetErrorName_)>("cuGetErrorName");
    cuGetErrorString_ = cuda_->get<decltype(cuGetErrorString_)>("cuGetErrorString");
    cuInit_ = cuda_->get<decltype(cuInit_)>("cuInit");
    cuDriverGetVersion_ = cuda_->get<decltype(cuDriverGetVersion_)>("cuDriverGetVersion");
    cuDeviceGetCount_ = cuda_->get<decltype(cuDeviceGetCount_)>("cuDeviceGetCount");
    cuDeviceGet_ = cuda_->get<decltype(cuDeviceGet_)>("cuDeviceGet");
    cuDeviceGetName_ = cuda_->get<decltype(cuDeviceGetName_)>("cuDeviceGetName");
    cuDeviceGetAttribute_ = cuda_->get<decltype(cuDeviceGetAttribute_)>("cuDeviceGetAttribute");
    cuDeviceTotalMem_ = cuda_->get<decltype(cuDeviceTotalMem_)>("cuDeviceTotalMem_v2");
    cuDevicePrimaryCtxRetain_ = cuda_->get<decltype(cuDevicePrimaryCtxRetain_)>("cuDevicePrimaryCtxRetain");
    cuDevicePrimaryCtxRelease_ = cuda_->get<decltype(cuDevicePrimaryCtxRelease_)>("cuDevicePrimaryCtxRelease_v2");
    cuCtxSetCurrent_ = cuda_->get<decltype(cuCtxSetCurrent_)>("cuCtxSetCurrent");
    cuCtxSynchronize_ = cuda_->get<decltype(cuCtxSynchronize_)>("cuCtxSynchronize");
    cuModuleLoadData_ = cuda_->get<decltype(cuModuleLoadData_)>("cuModuleLoadData");
    cuModuleUnload_ = cuda_->get<decltype(cuModuleUnload_)>("cuModuleUnload");
    cuModuleGetFunction_ = cuda_->get<decltype(cuModuleGetFunction_)>("cuModuleGetFunction");
    cuFuncGetAttribute_ = cuda_->get<decltype(cuFuncGetAttribute_)>("cuFuncGetAttribute");
    cuFuncSetAttribute_ = cuda_->get<decltype(cuFuncSetAttribute_)>("cuFuncSetAttribute");
    // CUDA 12.4 on; without it the arguments' sizes go unchecked.
    cuFuncGetParamInfo_ = reinterpret_cast<decltype(cuFuncGetParamInfo_)>(cuda_->try_symbol("cuFuncGetParamInfo"));
    cuFuncGetParamCount_ = reinterpret_cast<decltype(cuFuncGetParamCount_)>(cuda_->try_symbol("cuFuncGetParamCount"));  // 13.1 on
    under_tool_ = std::getenv(kUnderToolVariable) != nullptr;
    cuMemAlloc_ = cuda_->get<decltype(cuMemAlloc_)>("cuMemAlloc_v2");
    cuMemFree_ = cuda_->get<decltype(cuMemFree_)>("cuMemFree_v2");
    cuMemcpyHtoD_ = cuda_->get<decltype(cuMemcpyHtoD_)>("cuMemcpyHtoD_v2");
    cuMemcpyDtoH_ = cuda_->get<decltype(cuMemcpyDtoH_)>("cuMemcpyDtoH_v2");
    cuLaunchKernel_ = cuda_->get<decltype(cuLaunchKernel_)>("cuLaunchKernel");
    cuEventCreate_ = cuda_->get<decltype(cuEventCreate_)>("cuEventCreate");
    cuEventDestroy_ = cuda_->get<decltype(cuEventDestroy_)>("cuEventDestroy_v2");
    cuEventRecord_ = cuda_->get<decltype(cuEventRecord_)>("cuEventRecord");
    cuEventSynchronize_ = cuda_->get<decltype(cuEventSynchronize_)>("cuEventSynchronize");
    // CUDA 12.8 added _v2 (cuda.h 13 maps the name to it); older drivers have only the first.
    if (void* v2 = cuda_->try_symbol("cuEventElapsedTime_v2")) cuEventElapsedTime_ = reinterpret_cast<decltype(cuEventElapsedTime_)>(v2);
    else cuEventElapsedTime_ = cuda_->get<decltype(cuEventElapsedTime_)>("cuEventElapsedTime");
  }

  void read_info() {
    auto attr = [&](CUdevice_attribute a, const char* what) {
      int v = 0;
      check(cuDeviceGetAttribute_(&v, a, dev_), std::string("cuDeviceGetAttribute(") + what + ")");
      return static_cast<int64_t>(v);
    };
    char name[256] = {};
    check(cuDeviceGetName_(name, sizeof name, dev_), "cuDeviceGetName");
    size_t mem = 0;
    check(cuDeviceTotalMem_(&mem, dev_), "cuDeviceTotalMem");
    int drv = 0;
    check(cuDriverGetVersion_(&drv), "cuDriverGetVersion");
    const int64_t major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR");
    const int64_t minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
    info_.backend = "cuda";
    info_.name = name;
    info_.arch = fmt::format("sm_{}{}", major, minor);
    info_.driver_version = fmt::format("CUDA driver {}.{}", drv / 1000, (drv % 1000) / 10);
    info_.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    info_.max_block = {attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"), attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"),
                       attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z")};
    info_.max_grid = {attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"), attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"),
                      attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z")};
    info_.shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK");
    info_.shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
    info_.total_memory = static_cast<int64_t>(mem);
    info_.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
    info_.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE");
  }

  std::unique_ptr<DynLib> cuda_;
  std::unique_ptr<Compiler> compiler_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  std::vector<CUmodule> modules_;
  DeviceInfo info_;

  CUresult (*cuGetErrorName_)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString_)(CUresult, const char**) = nullptr;
  CUresult (*cuInit_)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion_)(int*) = nullptr;
  CUresult (*cuDeviceGetCount_)(int*) = nullptr;
  CUresult (*cuDeviceGet_)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName_)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute_)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem_)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain_)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease_)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent_)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize_)() = nullptr;
  CUresult (*cuEventCreate_)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventDestroy_)(CUevent) = nullptr;
  CUresult (*cuEventRecord_)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize_)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime_)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuModuleLoadData_)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload_)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction_)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncGetAttribute_)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*cuFuncSetAttribute_)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*cuFuncGetParamInfo_)(CUfunction, size_t, size_t*, size_t*) = nullptr;
  CUresult (*cuFuncGetParamCount_)(CUfunction, size_t*) = nullptr;
  bool under_tool_ = false;
  CUfunction poisoner_ = nullptr;  // poison_shared's kernel, loaded on first use  // a wrapper such as compute-sanitizer watches every API call
  CUresult (*cuMemAlloc_)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree_)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD_)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH_)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuLaunchKernel_)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                              void**, void**) = nullptr;

};

}  // namespace

std::unique_ptr<Backend> open_cuda_backend(int device) { return std::make_unique<CudaBackend>(device); }

}  // namespace hk
