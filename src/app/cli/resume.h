// --resume DIR: finish the run whose journal is DIR/results.jsonl. The journal's header holds the
// RunSpec the run began with and the cases it selected (contracts/journal_header.h): every
// setting comes from it, and the same cases are selected (patterns, -k, --exclude, --last-failed
// and --shard are not evaluated again). A setting given on the command line with another value is
// refused, except --timeout, -x and --device(s), which may change (the GPU must be of the same
// kind). docs/results.md, "The journal".
#pragma once

#include <string>

#include "app/cli/settings.h"
#include "run/journal.h"

namespace hk {

// Reads s.resume_dir's journal into *journal and applies its RunSpec to s (out_dir becomes the
// resumed folder). False, with the reason printed, when the run cannot be resumed.
bool resume_settings(Settings& s, JournalContents* journal, std::string* journal_path);

// The options --resume lets differ from the journal's, as the command line names them.
bool resume_may_change(const std::string& option);

}  // namespace hk
