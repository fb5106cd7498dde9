// What the command line says of a run's reports: the folder, the forms and the console's
// verbosity. The parser fills it (app/cli/settings.h holds it) and the reporters read it.
#pragma once

#include <cstddef>
#include <string>

namespace hk {

// Where results go, and in which forms.
struct ReportSettings {
  std::string out_dir;     // "" for the mode's default
  std::string junit_path;  // "" for no JUnit file
  bool markdown_every_case = false;
  bool no_repro = false;  // no repro folders for the cases that did not pass
  bool force = false;     // --force: replace results of another device, backend or mode (results_owner.h)
  int verbosity = 0;      // the console: -1 with -q, 1 with -v (console_reporter.h)
  size_t durations = 0;   // --durations N: the N slowest cases after the run
};

}  // namespace hk
