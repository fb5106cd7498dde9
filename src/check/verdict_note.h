// One line saying why a case got its verdict: the markdown table, the console and JUnit all
// print the same words.
#pragma once

#include <string>

#include "contracts/result.h"

namespace hk {

// "passes alone, FAIL after a / b, c / d": what a LEAK verdict means.
std::string leak_note(const LeakFinding& l);

// What went wrong (or, for a PASS, the ulps of low-precision outputs); empty when nothing to say.
std::string verdict_note(const CaseResult& r);

}  // namespace hk
