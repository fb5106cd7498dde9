// A #line directive naming a file, its name written as a C string literal: a project folder with a
// quote, a backslash or a newline in its name (a byte any path may hold) made every host compile
// fail, the name ending the directive early.
#pragma once

#include <string>

namespace hk {

// "#line <line> \"<path, escaped>\"" without a line end.
std::string line_directive(int line, const std::string& path);

}  // namespace hk
