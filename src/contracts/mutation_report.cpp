#include "contracts/mutation_report.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hk {

using nlohmann::json;

namespace {
constexpr MutantOutcome kOutcomes[] = {MutantOutcome::KILLED, MutantOutcome::SURVIVED, MutantOutcome::EQUIVALENT, MutantOutcome::DISCARDED,
                                       MutantOutcome::NOT_RUN};

json summary_json(const MutationSummary& s) {
  const auto score = s.score();
  return {{"kernels", s.kernels},   {"scored", s.scored},       {"killed", s.killed},
          {"survived", s.survived}, {"equivalent", s.equivalent}, {"score", score ? json(*score) : json(nullptr)}};
}
}  // namespace

const char* outcome_name(MutantOutcome o) {
  switch (o) {
    case MutantOutcome::KILLED: return "KILLED";
    case MutantOutcome::SURVIVED: return "SURVIVED";
    case MutantOutcome::EQUIVALENT: return "EQUIVALENT";
    case MutantOutcome::DISCARDED: return "DISCARDED";
    case MutantOutcome::NOT_RUN: return "NOT_RUN";
  }
  return "?";
}

MutantOutcome outcome_from_name(const std::string& name) {
  for (MutantOutcome o : kOutcomes)
    if (name == outcome_name(o)) return o;
  throw std::invalid_argument("not a mutant outcome: " + name);
}

size_t KernelMutation::count(MutantOutcome o) const {
  size_t n = 0;
  for (const MutantRecord& m : mutants) n += m.outcome == o;
  return n;
}

std::optional<double> KernelMutation::score() const {
  const size_t killed = count(MutantOutcome::KILLED), survived = count(MutantOutcome::SURVIVED);
  if (killed + survived == 0) return std::nullopt;
  return static_cast<double>(killed) / static_cast<double>(killed + survived);
}

std::optional<double> MutationSummary::score() const {
  if (killed + survived == 0) return std::nullopt;
  return static_cast<double>(killed) / static_cast<double>(killed + survived);
}

MutationSummary summarize(const MutationReport& r) {
  MutationSummary s;
  for (const KernelMutation& k : r.kernels) {
    ++s.kernels;
    s.scored += k.skipped.empty() && k.score().has_value();
    s.killed += k.count(MutantOutcome::KILLED);
    s.survived += k.count(MutantOutcome::SURVIVED);
    s.equivalent += k.count(MutantOutcome::EQUIVALENT);
  }
  return s;
}

void to_json(json& j, const MutantRecord& m) {
  j = {{"id", m.id},         {"op", m.op},   {"description", m.description}, {"line", m.line}, {"outcome", outcome_name(m.outcome)},
       {"killed_by", m.killed_by}, {"why", m.why}, {"diff", m.diff},               {"seconds", m.seconds}};
}

void from_json(const json& j, MutantRecord& m) {
  m.id = j.at("id").get<std::string>();
  m.op = j.at("op").get<std::string>();
  m.description = j.at("description").get<std::string>();
  m.line = j.at("line").get<unsigned>();
  try {
    m.outcome = outcome_from_name(j.at("outcome").get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("outcome: ") + e.what());
  }
  m.killed_by = j.at("killed_by").get<std::string>();
  m.why = j.at("why").get<std::string>();
  m.diff = j.at("diff").get<std::string>();
  m.seconds = j.at("seconds").get<double>();
}

void to_json(json& j, const KernelMutation& k) {
  json counts = json::object();
  for (MutantOutcome o : kOutcomes) counts[outcome_name(o)] = k.count(o);
  const auto score = k.score();
  // counts and score are derived from mutants, written for readers of the file, not read back.
  j = {{"kernel", k.kernel},   {"source", k.source},   {"candidates", k.candidates}, {"cases", k.cases},
       {"skipped", k.skipped}, {"score", score ? json(*score) : json(nullptr)},      {"counts", counts},
       {"stale_equivalents", k.stale_equivalents},    {"mutants", k.mutants},        {"seconds", k.seconds}};
}

void from_json(const json& j, KernelMutation& k) {
  k.kernel = j.at("kernel").get<std::string>();
  k.source = j.at("source").get<std::string>();
  k.candidates = j.at("candidates").get<size_t>();
  k.cases = j.at("cases").get<size_t>();
  k.skipped = j.at("skipped").get<std::string>();
  k.stale_equivalents = j.at("stale_equivalents").get<std::vector<std::string>>();
  k.mutants = j.at("mutants").get<std::vector<MutantRecord>>();
  k.seconds = j.at("seconds").get<double>();
}

void to_json(json& j, const MutationReport& r) {
  j = {{"schema", "hkcheck-mutation-1"},
       {"hkcheck_version", r.hkcheck_version},
       {"git_commit", r.git_commit},
       {"started_at", r.started_at},
       {"command", r.command},
       {"device", r.device ? json(*r.device) : json(nullptr)},
       {"host_profile", r.host_profile},
       {"seed", r.seed},
       {"budget_s", r.budget_s},
       {"max_mutants", r.max_mutants},
       {"parallel", r.parallel},
       {"budget_exhausted", r.budget_exhausted},
       {"wall_s", r.wall_s},
       {"summary", summary_json(summarize(r))},  // derived from kernels, for readers; not read back
       {"kernels", r.kernels}};
}

void from_json(const json& j, MutationReport& r) {
  if (j.at("schema").get<std::string>() != "hkcheck-mutation-1")
    throw std::runtime_error("schema: expected hkcheck-mutation-1, got " + j.at("schema").get<std::string>());
  r.hkcheck_version = j.at("hkcheck_version").get<std::string>();
  r.git_commit = j.at("git_commit").get<std::string>();
  r.started_at = j.at("started_at").get<std::string>();
  r.command = j.at("command").get<std::vector<std::string>>();
  r.device.reset();
  if (!j.at("device").is_null()) r.device = j["device"].get<DeviceInfo>();
  r.host_profile = j.at("host_profile").get<std::string>();
  r.seed = j.at("seed").get<uint64_t>();
  r.budget_s = j.at("budget_s").get<double>();
  r.max_mutants = j.at("max_mutants").get<size_t>();
  r.parallel = j.value("parallel", 1);  // reports written before --parallel ran one at a time
  r.budget_exhausted = j.at("budget_exhausted").get<bool>();
  r.wall_s = j.at("wall_s").get<double>();
  r.kernels = j.at("kernels").get<std::vector<KernelMutation>>();
}

}  // namespace hk
