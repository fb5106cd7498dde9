// How many threads a CPU reference spreads its loops over (Context::parallel_for). References run
// inside workers, several at once: each uses the worker's share of the cores (its --cpu-threads,
// parallel_for.h), unless HKCHECK_REF_THREADS says otherwise (for benches and comparisons; the
// result is the same for every count).
#pragma once

#include <string>

namespace hk {

// HKCHECK_REF_THREADS when set to a whole number in [1, 1024], else parallel_threads(). A value
// that is set but not such a number is said once on stderr and ignored.
int reference_threads();

// The threads text asks for, in [1, 1024]; 0 with *error naming the variable when it is not
// such a number.
int parse_reference_threads(const std::string& text, std::string* error);

}  // namespace hk
