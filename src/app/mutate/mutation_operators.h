// The mutation operators: each turns a token (or a short run of tokens) of a kernel's or a
// __device__ function's body into a small realistic bug. docs/mutate.md lists them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/mutate/clang_tokens.h"
#include "app/mutate/mutant.h"

namespace hk {

struct MutationOperator {
  const char* name;
  const char* what;
};
const std::vector<MutationOperator>& mutation_operators();

// Every mutant the operators make of source (tokenized as tokens), in source order: in the code
// the kernel `entry` runs (token_roles.h, reachable_from), or in every device body when entry is "".
std::vector<Mutant> generate_mutants(const std::string& source, const std::vector<SourceToken>& tokens, const std::string& entry = "");

// At most max of them (0: all), chosen by seed alone, returned in source order.
std::vector<Mutant> select_mutants(std::vector<Mutant> all, size_t max, uint64_t seed);

}  // namespace hk
