#include "select/case_id.h"

#include <fnmatch.h>

namespace hk {

std::string case_id(const std::string& kernel, const std::string& case_name) { return kernel + "/" + case_name; }

bool id_matches(const std::string& pattern, const std::string& id) {
  if (pattern.find_first_of("*?[") != std::string::npos) return fnmatch(pattern.c_str(), id.c_str(), 0) == 0;
  return id.find(pattern) != std::string::npos;
}

}  // namespace hk
