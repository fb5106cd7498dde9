#include "contracts/race_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace hk {

using nlohmann::json;

void to_json(json& j, const RaceAccess& a) { j = {{"block", a.block}, {"thread", a.thread}, {"write", a.write}, {"code", a.code}}; }

void from_json(const json& j, RaceAccess& a) {
  a.block = j.at("block").get<std::array<uint32_t, 3>>();
  a.thread = j.at("thread").get<std::array<uint32_t, 3>>();
  a.write = j.at("write").get<bool>();
  a.code = j.at("code").get<std::string>();
}

void to_json(json& j, const RaceReport& r) {
  j = {{"memory", r.memory}, {"buffer", r.buffer}, {"offset", r.offset}, {"earlier", r.earlier}, {"later", r.later}, {"pairs", r.pairs}};
}

void from_json(const json& j, RaceReport& r) {
  r.memory = j.at("memory").get<std::string>();
  r.buffer = j.at("buffer").get<uint64_t>();
  r.offset = j.at("offset").get<uint64_t>();
  r.earlier = j.at("earlier").get<RaceAccess>();
  r.later = j.at("later").get<RaceAccess>();
  r.pairs = j.at("pairs").get<int64_t>();
}

std::string describe(const RaceAccess& a) {
  return fmt::format("{} by thread ({},{},{}) of block ({},{},{}) at {}", a.write ? "write" : "read", a.thread[0], a.thread[1], a.thread[2],
                     a.block[0], a.block[1], a.block[2], a.code);
}

RacesFound::RacesFound(RaceReport r)
    : std::runtime_error(fmt::format("data race on {} memory at byte {}: {} and {}", r.memory, r.offset, describe(r.earlier), describe(r.later))),
      report(std::move(r)) {}

}  // namespace hk
