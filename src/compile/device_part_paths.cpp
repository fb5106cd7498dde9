// The parts of device-part extraction that need no parser (device_part.h): which headers are the
// host's, the device headers they bring, and paths as UsedDeclarations names files. Built with or
// without libclang.
#include <filesystem>

#include "compile/device_part.h"

namespace hk {

bool host_only_header(const std::string& name) {
  if (name == "cuda.h" || name == "cudaProfiler.h") return true;  // the driver API: host code only
  static const char* const kHostOnly[] = {"cublas", "cublasLt", "cufft", "curand.h", "cusparse", "cusolver", "cudnn", "nccl", "rccl",
                                          "nvtx", "nvToolsExt", "cuda_profiler_api", "cupti", "torch/", "ATen/", "c10/",
                                          "pybind11/", "Python.h", "hipblas", "rocblas", "hipfft", "rocfft", "hiprand.h",
                                          "rocrand.h", "roctx", "roctracer", "miopen", "hipsparse", "hipsolver", "thrust/"};
  for (const char* p : kHostOnly)
    if (name.rfind(p, 0) == 0 || name.find(std::string("/") + p) != std::string::npos) return true;
  return false;
}

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : c.string();
}

std::vector<std::string> device_headers_of(const std::string& host_header, bool hip) {
  const bool cublas = host_header.rfind("cublas", 0) == 0 || host_header.find("/cublas") != std::string::npos;
  if (hip || !cublas) return {};
  return {"cuda_fp16.h", "cuda_bf16.h"};
}

}  // namespace hk
