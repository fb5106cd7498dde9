// "Did you mean": the candidate nearest a mistyped word (a kernel name, an option), by edit
// distance, as pytest and git suggest one.
#pragma once

#include <string>
#include <vector>

namespace hk {

// Insertions, deletions and substitutions that turn a into b.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate fewest edits from word, when it is closer than max_edits; "" when none is.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates, size_t max_edits);

}  // namespace hk
