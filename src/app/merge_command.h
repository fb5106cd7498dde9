// hkcheck merge OUT DIR...: the results of the shards of one run (--shard K/N) as one run.
#pragma once

namespace hk {

// The "merge" mode's own command line: argv[0] is "merge". Returns the exit code of a run of
// the merged cases (exit_codes.h), or 2 when the parts cannot be merged.
int merge_main(int argc, char** argv);

}  // namespace hk
