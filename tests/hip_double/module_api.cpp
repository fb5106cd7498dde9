// Modules and launches: a code object of the double's hipRTC (code_object.h) is loaded, and its
// kernels run, by the host backend. The injected faults (faults.h) act here and in hipMalloc.
#include <fmt/format.h>

#include "device.h"

using namespace hk::hip_double;

namespace {

bool is_function(Device& d, hipFunction_t f) { return f && d.functions.count(f); }

hipError_t check_shape(Device& d, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block, unsigned shared) {
  const hk::HostProfile& p = d.profile();
  for (int i = 0; i < 3; ++i)
    if (grid[i] == 0 || block[i] == 0 || grid[i] > p.max_grid[i] || block[i] > p.max_block[i]) return hipErrorInvalidValue;
  if (block[0] * block[1] * block[2] > p.max_threads_per_block || shared > p.shared_per_block_optin) return hipErrorInvalidValue;
  return hipSuccess;
}

}  // namespace

extern "C" {

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  return device_call("hipModuleLoadData", [&](Device& d) {
    if (!module) return hipErrorInvalidValue;
    std::string why;
    auto code = unpack_code_object(image, &why);
    if (!code) {
      report("hipModuleLoadData", why);
      return hipErrorInvalidImage;
    }
    *module = new ihipModule_t{std::move(*code), {}};
    d.modules.insert(*module);
    return hipSuccess;
  });
}

hipError_t hipModuleUnload(hipModule_t module) {
  return device_call("hipModuleUnload", [&](Device& d) {
    if (!d.modules.erase(module)) return hipErrorInvalidHandle;
    for (const auto& f : module->functions) d.functions.erase(f.get());
    delete module;  // the host backend keeps the library loaded until the process ends
    return hipSuccess;
  });
}

hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  return device_call("hipModuleGetFunction", [&](Device& d) {
    if (!function || !name) return hipErrorInvalidValue;
    if (!d.modules.count(module)) return hipErrorInvalidHandle;
    const auto entry = module->code.entries.find(name);
    if (entry == module->code.entries.end() || d.faults().missing_entry == name) return hipErrorNotFound;
    hk::Backend::Kernel kernel = nullptr;
    try {
      kernel = d.host().load(module->code.library, entry->second);
    } catch (const hk::MissingEntry& e) {
      report("hipModuleGetFunction", e.what());
      return hipErrorNotFound;
    } catch (const hk::BackendError& e) {
      report("hipModuleGetFunction", e.what());
      return hipErrorInvalidImage;
    }
    module->functions.push_back(std::make_unique<ihipModuleSymbol_t>(ihipModuleSymbol_t{kernel, name}));
    *function = module->functions.back().get();
    d.functions.insert(*function);
    return hipSuccess;
  });
}

hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attr, hipFunction_t function) {
  return device_call("hipFuncGetAttribute", [&](Device& d) {
    if (!value) return hipErrorInvalidValue;
    if (!is_function(d, function)) return hipErrorInvalidHandle;
    const hk::KernelAttributes a = d.host().attributes(function->kernel);
    switch (attr) {
      case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = static_cast<int>(a.max_threads_per_block); break;
      case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(a.static_shared_bytes); break;
      case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = static_cast<int>(a.registers); break;
      default: return hipErrorInvalidValue;  // an attribute the double has no figure for
    }
    return hipSuccess;
  });
}

// Runs to completion before it returns. The arguments are kernelParams, one pointer per
// parameter; hkcheck ends the array with a null pointer, which the host backend checks the
// kernel's parameter count against.
hipError_t hipModuleLaunchKernel(hipFunction_t function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                                 unsigned block_y, unsigned block_z, unsigned shared, hipStream_t stream, void** params, void** extra) {
  return device_call("hipModuleLaunchKernel", [&](Device& d) {
    if (!is_function(d, function) || stream != nullptr) return hipErrorInvalidHandle;  // only the null stream here
    if (!params || extra) return hipErrorInvalidValue;  // the double takes kernelParams only
    const std::array<int64_t, 3> grid{grid_x, grid_y, grid_z}, block{block_x, block_y, block_z};
    if (const hipError_t shape = check_shape(d, grid, block, shared); shape != hipSuccess) return shape;
    if (d.faults().illegal_address == function->name) {
      report("hipModuleLaunchKernel", fmt::format("{}: an illegal address, injected (HKCHECK_HIP_DOUBLE_ILLEGAL_ADDRESS)", function->name));
      return d.sticky = hipErrorIllegalAddress;
    }
    try {
      d.host().launch(function->kernel, grid, block, shared, params);
    } catch (const hk::LaunchFinding& e) {  // a GPU ran it to its end and says nothing
      report("hipModuleLaunchKernel", fmt::format("{}: {}", function->name, e.what()));
    } catch (const hk::BackendError& e) {
      report("hipModuleLaunchKernel", fmt::format("{}: {}", function->name, e.what()));
      if (!e.sticky) return hipErrorInvalidValue;  // e.g. a parameter count the kernel does not take
      return d.sticky = hipErrorLaunchFailure;      // e.g. a barrier no thread can pass
    }
    if (d.faults().lose_device == function->name) {
      report("hipModuleLaunchKernel", fmt::format("{}: the device is lost after this launch, injected (HKCHECK_HIP_DOUBLE_LOSE_DEVICE)", function->name));
      d.sticky = hipErrorNoDevice;
    }
    return hipSuccess;
  });
}

}  // extern "C"
