// hkcheck diff A B (and the older --diff A B): two runs, result folders or files, compared case
// by case (results_diff.h).
#pragma once

#include <string>

namespace hk {

struct DiffOptions {
  std::string a, b;
  std::string fail_on = "regression";  // regression, change or never
  std::string md_path, json_path;      // extra copies of the report; "" for none
};

// Prints the markdown report; returns the exit code (exit_codes.h).
int diff_command(const DiffOptions& o);

// The "diff" mode's own command line: argv[0] is "diff".
int diff_main(int argc, char** argv);

}  // namespace hk
