#include "app/mutate/mutants_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "util/file_util.h"
#include "util/fnv1a.h"

namespace hk {

namespace {
constexpr const char* kSchema = "hkcheck-mutants-1";
}  // namespace

const KernelMutants* MutantsFile::find(const std::string& kernel) const {
  for (const KernelMutants& k : kernels)
    if (k.kernel == kernel) return &k;
  return nullptr;
}

std::string source_hash(const std::string& source_text) { return fmt::format("{:016x}", fnv1a(source_text)); }

void to_json(nlohmann::json& j, const Mutant& m) {
  j = {{"id", m.id},       {"op", m.op},   {"line", m.line},        {"column", m.column},
       {"begin", m.begin}, {"end", m.end}, {"replacement", m.replacement}, {"description", m.description}};
}

void from_json(const nlohmann::json& j, Mutant& m) {
  j.at("id").get_to(m.id), j.at("op").get_to(m.op), j.at("line").get_to(m.line), j.at("column").get_to(m.column);
  j.at("begin").get_to(m.begin), j.at("end").get_to(m.end), j.at("replacement").get_to(m.replacement);
  j.at("description").get_to(m.description);
  if (m.end < m.begin) throw std::runtime_error(fmt::format("mutant '{}': end {} before begin {}", m.id, m.end, m.begin));
}

void to_json(nlohmann::json& j, const KernelMutants& k) {
  j = {{"kernel", k.kernel}, {"source", k.source}, {"source_hash", k.source_hash}, {"mutants", k.mutants}};
}

void from_json(const nlohmann::json& j, KernelMutants& k) {
  j.at("kernel").get_to(k.kernel), j.at("source").get_to(k.source), j.at("source_hash").get_to(k.source_hash);
  j.at("mutants").get_to(k.mutants);
}

void to_json(nlohmann::json& j, const MutantsFile& f) { j = {{"schema", kSchema}, {"kernels", f.kernels}}; }

void from_json(const nlohmann::json& j, MutantsFile& f) {
  if (j.at("schema").get<std::string>() != kSchema)
    throw std::runtime_error(fmt::format("schema '{}' is not {}", j.at("schema").get<std::string>(), kSchema));
  j.at("kernels").get_to(f.kernels);
}

MutantsFile read_mutants_file(const std::string& path) {
  const std::string text = read_file(path, "mutants file");
  try {
    return nlohmann::json::parse(text).get<MutantsFile>();
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a mutants file written by `hkcheck mutate --save-mutants`: {}", path, e.what()));
  }
}

void write_mutants_file(const std::string& path, const MutantsFile& f) {
  std::string err;
  if (!write_file_atomic(path, nlohmann::json(f).dump(1) + "\n", &err)) throw std::runtime_error(fmt::format("cannot write {}: {}", path, err));
}

}  // namespace hk
