// The files a compile can read through #include, found as its preprocessor finds them, so that the
// caches and --resume key on every header that decides a verdict: beside the source, through
// "../", in an include folder or an -isystem folder. NVRTC 13 has no dependency output (-M, -MD,
// -MF and --generate-dependencies are "unrecognized option"), so hkcheck follows the include lines
// itself, for every compiler alike. It errs on the side of reading too much: every branch of every
// #if is followed, and an include line inside a /* */ comment counts, so a header read only under
// some macro is in the key too. A file that a compile can find only through a macro
// (#include FOO) cannot be told: then every header of every folder the compile searches counts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/include_options.h"
#include "select/root_relative.h"

namespace hk {

// Where a compile looks for a header, in its compiler's order.
struct IncludeSearch {
  std::vector<std::string> quote;   // -iquote: "x" only, after the including file's own folder
  std::vector<std::string> dirs;    // -I, then -isystem, then -idirafter: "x" and <x>
  std::vector<std::string> forced;  // -include and -imacros: read before the source
};

// The search a compile with these options makes (include_option_at's options, in order of kind).
IncludeSearch include_search(const std::vector<std::string>& options);

// One line for each file the source can reach ("<path> <hash>", the path as root writes it), one
// for each name found nowhere ("missing <x>": the compiler's own or hkcheck's prelude header,
// which the caches key by the compiler's identity and the prelude's text), sorted; and a line that
// says when an include's name came from a macro, or more than kMaxClosureFiles were reached (the
// rest do not count: a bound on a runaway tree, far beyond any library's). source_text is what the compiler is given as source_path (it may differ from the
// file on disk: a device part). A file is read again only when its size or time changed.
std::string include_closure_key(const std::string& source_text, const std::string& source_path, const IncludeSearch& search,
                                const RootRelative& root);

// The names a file's include lines (and __has_include tests) name, as written, every #if branch
// alike; the file is read once while its size and time stay the same. Empty when it cannot be read.
std::vector<std::string> included_names(const std::string& path);

// The files the source reaches (absolute paths, sorted), by the same walk.
std::vector<std::string> include_closure_files(const std::string& source_text, const std::string& source_path, const IncludeSearch& search);

// Past this many files reached, the rest do not count.
inline constexpr size_t kMaxClosureFiles = 20000;

}  // namespace hk
