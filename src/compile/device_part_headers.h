// The device part of a kernel file's own headers. llm.c's kernels include headers (llmc/*.cuh)
// that hold device helpers beside host functions, host globals and cuBLAS includes: a header the
// device part keeps, found in the kernel's folder or an "include_dirs" folder, that holds host
// code goes into the source in place of its #include, as its own device part, between #line
// directives, so that messages still name the header and its lines. Headers elsewhere (the
// toolkit's, the system's) and headers without host code stay includes.
#pragma once

#include <string>
#include <vector>

#include "compile/device_part.h"

namespace hk {

// part: the device part of the file at path (device_part()); options and hip as given to it.
// Each project header's dropped code is added to part.dropped, named with the header; its folder
// to part.include_dirs (its own relative includes). A header that cannot be read stays an include.
void put_in_project_headers(DevicePart& part, const std::string& path, const std::vector<std::string>& options, bool hip);

}  // namespace hk
