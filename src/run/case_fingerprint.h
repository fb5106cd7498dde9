// What a case's verdict depends on besides the run's settings, as one hash: its plan as a worker
// receives it (every manifest expression evaluated: shapes, launch, arguments, tolerances,
// defines, entry, seed, launches), the verdicts it is expected to reach and its timeout, the
// kernel source and every header it reaches, and the reference's source and every header it
// reaches (include_closure.h).
// The journal keeps it with each result: --resume keeps a result only while it is unchanged.
#pragma once

#include <cstdint>
#include <string>

#include "model/manifest.h"

namespace hk {

// 16 hex digits. reference_file: the file defining k.reference ("" when none was found).
// project_root: paths inside it count relative to it ("": as they are).
std::string case_fingerprint(const KernelSpec& k, const CaseSpec& c, uint64_t run_seed, int run_repeat, const std::string& reference_file,
                             const std::string& project_root = "");

}  // namespace hk
