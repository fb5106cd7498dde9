// The seam between hkcheck and a GPU vendor: device information, run-time compilation, module
// loading, buffers, launch and synchronisation. One file per vendor implements it
// (backends/cuda_backend.cpp, backends/hip_backend.cpp); vendor libraries are loaded at run time,
// so the binary starts on machines without them.
#pragma once

#include <array>
#include <map>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hk {

struct DeviceInfo {
  std::string backend;          // "cuda", "hip"
  std::string name;             // "NVIDIA H100 80GB HBM3"
  std::string arch;             // "sm_90", "gfx942"
  std::string driver_version;   // as the driver reports it
  std::string runtime_version;  // runtime / run-time compiler version
  int64_t max_threads_per_block = 0;
  std::array<int64_t, 3> max_block{0, 0, 0};
  std::array<int64_t, 3> max_grid{0, 0, 0};
  int64_t shared_per_block = 0;        // without opting in
  int64_t shared_per_block_optin = 0;  // the most a kernel may ask for
  int64_t total_memory = 0;
  int64_t host_memory = 0;  // of the machine the worker runs on; 0: read it from the system
  int64_t multiprocessors = 0;
  int64_t warp_size = 0;
  std::string note;  // e.g. why a run fell back to the host backend; empty when nothing to say
};
void to_json(nlohmann::json& j, const DeviceInfo& d);
void from_json(const nlohmann::json& j, DeviceInfo& d);

// A failed API call. sticky: the device context is unusable afterwards (a kernel fault); only a
// new process gets a working one.
struct BackendError : std::runtime_error {
  BackendError(const std::string& what, bool is_sticky) : std::runtime_error(what), sticky(is_sticky) {}
  bool sticky;
};
// The vendor library or a device is missing: the backend cannot be used on this machine.
struct BackendUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The compiled module has no function of the requested name.
struct MissingEntry : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The launch ran to its end and the backend saw the kernel do what a GPU leaves undefined (the
// host backend: a shuffle reading a lane that has returned): the case FAILs with this message.
struct LaunchFinding : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One source to compile, with everything that goes into it besides the backend's base options.
struct CompileRequest {
  std::string source;       // the text
  std::string source_name;  // its path, as the compiler's messages name it
  std::vector<std::string> options;  // defines, include folders, the manifest's own options
  // The kernels to find in the result: extern "C" names or C++ name expressions such as
  // "act_and_mul<float, silu<float>, true>", resolved by the compiler (name expressions).
  std::vector<std::string> entries;
};

struct CompileOutput {
  bool ok = false;
  std::string binary;  // cubin / code object / shared library
  std::string log;     // the compiler's log, warnings included
  std::map<std::string, std::string> symbols;  // entry -> its symbol in binary, for load()
  // Entries left out because they name no kernel of the file (compile_entries), and why.
  std::map<std::string, std::string> entry_errors;
};

// The most alignment a kernel parameter's type may declare (a struct argument's "align"): each
// argument given to launch() starts at a multiple of it.
constexpr size_t kMaxArgumentAlign = 256;

struct KernelAttributes {
  int64_t max_threads_per_block = 0;  // after register allocation
  int64_t static_shared_bytes = 0;
  int64_t registers = 0;
};

// One parameter of a loaded kernel, as far as the backend can tell (kernel_params.h checks the
// manifest's arguments against them). The host backend knows each one's C++ type; the CUDA
// driver only sizes (cuFuncGetParamInfo), so kind stays unknown there.
enum class ParamKind { unknown, pointer, floating, signed_int, unsigned_int, other };
struct KernelParam {
  ParamKind kind = ParamKind::unknown;
  size_t bytes = 0;
  std::string type;  // as the compiler spells it ("long int"); empty when unknown
};

// Bytes around an allocation that its kernel can write without a fault and that belong to no
// other buffer (backends/host/guarded_memory.h: the rest of the page before it, the padding
// after). upload and download reach them; the guards cover them (guard.h).
struct AllocationSlack {
  size_t before = 0, after = 0;
};

// Set in a worker's environment when it runs under a wrapper (--sanitize's compute-sanitizer),
// which reports every failed API call as the program's: the backend then asks only what it must.
constexpr const char* kUnderToolVariable = "HKCHECK_UNDER_TOOL";

class Backend {
 public:
  using Kernel = void*;
  virtual ~Backend() = default;

  virtual const DeviceInfo& device() const = 0;
  // Compiles one source with the in-memory prelude headers.
  virtual CompileOutput compile(const CompileRequest& request) = 0;
  // symbol: as CompileOutput::symbols gives it. Throws MissingEntry when the module lacks it,
  // BackendError otherwise.
  virtual Kernel load(const std::string& binary, const std::string& symbol) = 0;
  virtual KernelAttributes attributes(Kernel k) = 0;
  // The kernel's parameters in order; nullopt when the backend cannot tell (HIP: neither hipRTC
  // nor the module API says). passed: how many arguments the manifest passes; a backend that
  // cannot count without an error a sanitizer would report as the kernel's looks no further.
  virtual std::optional<std::vector<KernelParam>> parameters(Kernel k, size_t passed) {
    (void)k;
    (void)passed;
    return std::nullopt;
  }
  // Before a checked launch: fills what the device keeps of shared memory between launches with
  // a poison (all bits set: a NaN in every float type), so that a kernel reading a slot it never
  // wrote sees it. The host backend poisons every block's shared memory itself; a GPU gives each
  // block what the SM last held, so the CUDA backend has a kernel fill all of it first.
  virtual void poison_shared() {}
  // Opts the kernel in to more dynamic shared memory than the default per-block amount.
  virtual void allow_dynamic_shared(Kernel k, int64_t bytes) = 0;

  virtual uint64_t alloc(size_t bytes) = 0;
  virtual void free(uint64_t ptr) = 0;
  virtual void upload(uint64_t dst, const void* src, size_t bytes) = 0;
  virtual void download(void* dst, uint64_t src, size_t bytes) = 0;
  // Of an address alloc() returned. None on a GPU: its allocator may hand the bytes next to a
  // buffer to another one.
  virtual AllocationSlack slack(uint64_t ptr) {
    (void)ptr;
    return {};
  }

  virtual void launch(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
                      int64_t shared_bytes, void** args) = 0;
  virtual void synchronize() = 0;

  // Launches the kernel `launches` times on the same arguments and returns each launch's time in
  // ms: between two device events around it where the backend has them, else (the host
  // backend) a steady clock around the launch and synchronize.
  virtual std::vector<double> time_launches(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
                                            int64_t shared_bytes, void** args, int launches);
};

// Settings of the host (CPU) backend.
struct HostOptions {
  std::string profile = "h100";  // the declared device limits: host_profile.h
  int threads = 0;               // OS threads running blocks; 0: one per core
  std::string cache_dir;         // where the compiler keeps its prelude (host_prelude.h); "": nowhere
  // --races: kernels are built with thread-sanitizer instrumentation and every launch runs under
  // the happens-before race detector (backends/host/race_detector.h), its blocks on one OS thread.
  bool races = false;
};

// Opens the named backend (a row of platform/backend_table.h) on device index; throws
// BackendUnavailable. This and the three below read the table (backend_table.cpp).
std::unique_ptr<Backend> open_backend(const std::string& name, int device, const HostOptions& host = {});
// Backends compiled into this binary, in the order "auto" tries them.
std::vector<std::string> backend_names();

// The flags a backend puts before the manifest's own on every compile (arch, language, backend
// macro), so a repro can state the exact command line. Empty for a backend without a compiler.
std::vector<std::string> base_compile_options(const std::string& backend, const std::string& arch);

// The in-memory headers of a prelude set (a row's prelude or keyed_prelude) a kernel may include:
// {name, contents}. hkcheck.h and its parts for all; each backend may add its own.
const std::vector<std::pair<std::string, std::string>>& prelude_headers(const std::string& set);

}  // namespace hk
