// Paths written relative to the project's root, so that what is kept between runs (the compile
// cache's keys and logs) reads the same for the same project in another folder: CI clones the
// project into a new folder on every run and keeps only the cache.
#pragma once

#include <string>

namespace hk {

class RootRelative {
 public:
  // root: the project's folder (made absolute here); "" keeps every path absolute.
  explicit RootRelative(const std::string& root);

  // "<root>/kernels/a.cu" for a path inside the root, else the path made absolute; both normal.
  std::string path(const std::string& p) const;
  // A compiler option with its path written as path() writes it when it is -I<dir>; in any other
  // option, the root's absolute spelling as without_root() writes it.
  std::string option(const std::string& o) const;
  // text with every "<absolute root>/" replaced by a token, and the token replaced back by this
  // root's: a compile log kept in one folder names the files of the folder that reads it.
  std::string without_root(const std::string& text) const;
  std::string with_root(const std::string& text) const;

  const std::string& root() const { return root_; }

 private:
  std::string root_;  // absolute, normal, with no trailing '/'; "" when none
};

}  // namespace hk
