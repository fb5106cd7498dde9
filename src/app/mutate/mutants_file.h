// The mutants of kernel sources, written where libclang can read the sources and read back where
// it cannot (a GPU machine without it), so that both run the same mutants. Each kernel's list
// names the hash of the source it came from: a source changed since is refused, never mutated
// at offsets that no longer mean the same edit.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "app/mutate/mutant.h"

namespace hk {

struct KernelMutants {
  std::string kernel;
  std::string source;       // the path, as the report shows it
  std::string source_hash;  // source_hash() of its text
  std::vector<Mutant> mutants;  // every mutant made, before --max-mutants chooses
};

struct MutantsFile {
  std::vector<KernelMutants> kernels;
  const KernelMutants* find(const std::string& kernel) const;
};

std::string source_hash(const std::string& source_text);

void to_json(nlohmann::json& j, const Mutant& m);
void from_json(const nlohmann::json& j, Mutant& m);
void to_json(nlohmann::json& j, const KernelMutants& k);
void from_json(const nlohmann::json& j, KernelMutants& k);
void to_json(nlohmann::json& j, const MutantsFile& f);
void from_json(const nlohmann::json& j, MutantsFile& f);

// Throw std::runtime_error naming the file (and, for a bad record, what is wrong in it).
MutantsFile read_mutants_file(const std::string& path);
void write_mutants_file(const std::string& path, const MutantsFile& f);

}  // namespace hk
