// The commit hkcheck was built from, stamped at build time (cmake/git_commit.cmake), so results
// never carry the commit of an earlier configure.
#pragma once

namespace hk {

const char* git_commit();

}  // namespace hk
