// The worker's part of a repro folder (run/repro.h writes the rest): the output as the kernel
// left it and the reference's values, for a case that ran to a comparison and did not pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/case_plan.h"

namespace hk {

// Writes dir/output/<tensor>.got.hkt and .expected.hkt (f64). Throws std::runtime_error.
void write_repro_output(const std::string& dir, const TensorPlan& t, const std::vector<uint8_t>& got,
                        const std::vector<double>& expected);

}  // namespace hk
