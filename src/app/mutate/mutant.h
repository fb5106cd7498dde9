// One mutant of a kernel source: a single small edit (a token replaced, a call removed, an
// operand moved), named so that the same edit of the same source gets the same id every time.
#pragma once

#include <string>
#include <vector>

namespace hk {

struct Mutant {
  // "<operator>@<line>:<column>/<edit>", e.g. "loop_bound@31:25/<=": stable while the lines above
  // the edit do not move, and what a manifest's "equivalent_mutants" names.
  std::string id;
  std::string op;  // the operator's name (mutation_operators.h)
  unsigned line = 0, column = 0;
  size_t begin = 0, end = 0;  // the bytes of the source replaced
  std::string replacement;
  std::string description;  // what the edit does, e.g. "'<' -> '<='"
};

// The source with m applied.
std::string apply_mutant(const std::string& source, const Mutant& m);

// A unified diff (3 lines of context) from source to its mutant, naming the file `path`.
std::string mutant_diff(const std::string& path, const std::string& source, const Mutant& m);

}  // namespace hk
