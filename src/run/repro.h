// A repro folder for a case that did not pass: everything needed to look at it and to run it
// again alone, without the rest of the repository. Layout and tensor file format in
// docs/results.md:
//   manifest.json          the kernel's manifest entry with only this case, source beside it
//   <kernel source>        a copy of the kernel file
//   inputs/<tensor>.hkt    what the kernel was given (regenerated from the seed by the parent)
//   output/<tensor>.got.hkt, output/<tensor>.expected.hkt
//                          the kernel's output and the reference (f64), written by the worker
//                          when the case ran to a comparison
//   compile_options.txt    the exact compiler flags, one per line
//   rerun.sh               the one command that runs just this case again
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/case_plan.h"
#include "contracts/run_spec.h"
#include "model/dtype.h"
#include "model/manifest.h"
#include "contracts/tensor_file.h"

namespace hk {

// "repro/<kernel>/<case slug>", relative to the results folder.
std::string repro_subdir(const std::string& kernel, const std::string& case_name);

struct ReproSettings {
  RunSpec spec;                // the run's, as it ran (backend probed): rerun.sh is written from it
  std::string arch;            // the device's: it names the compiler's flags
  std::string hkcheck_exe;     // the binary rerun.sh starts by default
  std::string reference_file;  // the file defining the kernel's reference; a project's own is named in the repro's manifest
};

// The parent's part: everything but the kernel's output. Throws std::runtime_error.
void write_repro(const std::string& dir, const KernelSpec& k, const CaseSpec& c, const ReproSettings& s);

}  // namespace hk
