// The folders hkcheck trusts with what decides a verdict (the compile and reference caches, the
// temporary reference libraries of a run without a cache): a kernel runs as another user
// (nobody, under a root run) and must not be able to plant a library, a seal or a compile there.
#pragma once

#include <stdexcept>
#include <string>

namespace hk {

// A folder that is there but not this user's alone: what is kept there cannot be trusted.
struct UntrustedFolder : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Creates path when missing (its parents as usual, itself mode 0700) and checks it: a folder (a
// link to one only when follow_link), owned by this process's user, that neither its group nor
// others can write to. Throws UntrustedFolder naming what (e.g. "--cache-dir") and path, and
// saying how to mend it, when it is not; std::runtime_error when it cannot be made or read.
void ensure_private_folder(const std::string& path, const std::string& what, bool follow_link = true);

}  // namespace hk
