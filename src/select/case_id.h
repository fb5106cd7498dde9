// A case's id, "kernel/case", and how one pattern of -k, --exclude or a positional kernel/case
// glob matches it: the one word both case_filter.h and keyword_expr.h read.
#pragma once

#include <string>

namespace hk {

std::string case_id(const std::string& kernel, const std::string& case_name);

// A pattern with * ? or [ is a shell glob over the whole id; any other is a substring of it.
bool id_matches(const std::string& pattern, const std::string& id);

}  // namespace hk
