// --resume DIR: the finished cases and the run's settings come from DIR's journal. A setting not
// given on the command line is taken from the journal's header; one given that differs from it is
// refused, since the finished cases were run with the header's.
#pragma once

#include <string>

#include "cli/settings.h"
#include "journal.h"

namespace hk {

// Reads s.resume_dir's journal into *journal and takes the recorded settings into s (out_dir
// becomes the resumed folder). False, with the reason printed, when the run cannot be resumed.
bool resume_settings(Settings& s, JournalContents* journal, std::string* journal_path);

}  // namespace hk
