// What a rule of check/rules/ reads to judge one output (check/output_check.h).
#pragma once

#include <cstdint>
#include <vector>

namespace hk {

struct CasePlan;
namespace ref {
struct Context;
}

// What a rule reads: the plan, which output, every output's bytes as the kernel left them (in
// the device's layout), and the reference's context (inputs and expected outputs in double).
struct CheckInput {
  const CasePlan& plan;
  size_t out;
  const std::vector<std::vector<uint8_t>>& got;
  const ref::Context& ctx;
};

}  // namespace hk
