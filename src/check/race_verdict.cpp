#include "check/race_verdict.h"

#include <fmt/format.h>

#include "model/dtype.h"
#include "check/guard.h"

namespace hk {
namespace {

std::string memory_name(const RaceReport& race, const std::vector<TensorPlan>& tensors, const std::vector<uint64_t>& allocations) {
  if (race.memory != "global") return fmt::format("{} memory, byte {}", race.memory, race.offset);
  for (size_t i = 0; i < tensors.size() && i < allocations.size(); ++i) {
    if (allocations[i] != race.buffer) continue;
    const size_t unit = dtype_size(tensors[i].dtype);
    const uint64_t guard_bytes = data_offset(static_cast<size_t>(tensors[i].offset_bytes));
    if (race.offset < guard_bytes) return fmt::format("the guard before tensor '{}'", tensors[i].name);
    const uint64_t byte = race.offset - guard_bytes;
    return fmt::format("tensor '{}' (global memory), element {}", tensors[i].name, unit ? byte / unit : byte);
  }
  return fmt::format("global memory at byte {} of a buffer that is no tensor of the case", race.offset);
}

}  // namespace

std::string race_message(const RaceReport& race, const std::string& kernel, const std::vector<TensorPlan>& tensors,
                         const std::vector<uint64_t>& allocations) {
  std::string text = fmt::format("data race in {} on {}: {}, and {}, with no barrier, warp collective or fenced atomic ordering them",
                                 kernel, memory_name(race, tensors, allocations), describe(race.earlier), describe(race.later));
  if (race.pairs > 1) text += fmt::format(" ({} racing pairs of accesses in the launch)", race.pairs);
  return text;
}

}  // namespace hk
