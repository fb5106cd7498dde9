// How a kernel file is compiled, the same way by a run and by --compile-only: its device part
// when it also holds host code (device_part.h), its entries by name or by mangled symbol
// (entry_symbols.h), and the file's other entries kept when one names no kernel (compile_entries).
#pragma once

#include <functional>
#include <string>

#include "platform/backend.h"

namespace hk {

// backend: "cuda", "hip" or "host"; a host compile of a .hip file is parsed as HIP.
CompileOutput compile_kernel_file(const std::function<CompileOutput(const CompileRequest&)>& compile, const CompileRequest& request,
                                  const std::string& backend);

// The log with every "header not found" error told which manifest field fixes it: "include_dirs",
// or a per-vendor "source" when the header is the other vendor's own (backend: "cuda", "hip").
std::string explain_missing_headers(const std::string& log, const std::string& backend = "");

}  // namespace hk
