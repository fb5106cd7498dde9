// What the host backend's race detector (--races, backends/host/race_detector.h) found in a
// launch: two accesses to the same bytes, at least one a write, that no synchronisation orders.
// It crosses from the kernel process to the worker as JSON (to_json/from_json below), and the
// worker names the memory (which tensor, which element) from the buffer's address.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace hk {

struct RaceAccess {
  std::array<uint32_t, 3> block{0, 0, 0}, thread{0, 0, 0};
  bool write = false;
  std::string code;  // where in the kernel: "function (file:line)" or "function+0xOFFSET"
};

struct RaceReport {
  std::string memory;     // "global", "shared" (static __shared__) or "dynamic shared"
  uint64_t buffer = 0;    // global: the device address of the buffer; shared: 0
  uint64_t offset = 0;    // byte offset of the first byte both touch, from the buffer's start
  RaceAccess earlier, later;  // in the order the host ran them; neither happens before the other
  int64_t pairs = 1;          // racing pairs found in the launch, this one included
};

void to_json(nlohmann::json& j, const RaceAccess& a);
void from_json(const nlohmann::json& j, RaceAccess& a);
void to_json(nlohmann::json& j, const RaceReport& r);
void from_json(const nlohmann::json& j, RaceReport& r);

// Thrown by a launch under --races that found a race; the launch itself ran to its end.
struct RacesFound : std::runtime_error {
  explicit RacesFound(RaceReport r);
  RaceReport report;
};

// "write by thread (3,0,0) of block (1,0,0) at f (k.cu:12)"
std::string describe(const RaceAccess& a);

}  // namespace hk
