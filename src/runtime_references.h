// CPU references compiled at run time: each reference file (HK_REFERENCE definitions, see
// references/reference.h) becomes a shared library built by the system C++ compiler with Eigen,
// cached by content, and loaded by the workers. The built-in references use the same path as a
// project's own, so adding a reference never means rebuilding hkcheck.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reference.h"

namespace hk {

// The names a reference source defines with HK_REFERENCE(name), comments skipped.
std::vector<std::string> reference_names_in(const std::string& source);

// Which file defines each reference of the folders (their *.cpp, not recursively) and files given.
struct ReferenceIndex {
  std::map<std::string, std::string> file_of;  // reference name -> its source file
  std::vector<std::string> errors;             // a name defined twice (both files named), an unreadable file
  std::vector<std::string> searched;           // the folders and files looked at, for messages
};
ReferenceIndex scan_references(const std::vector<std::string>& folders, const std::vector<std::string>& files);

// hkcheck's own references and reference.h: <prefix>/share/hkcheck/references beside an installed
// binary, else the source tree's references/ this binary was built from.
std::string builtin_references_dir();

struct ReferenceLibrary {
  bool ok = false;
  std::string path;  // the shared library, when ok
  std::string log;   // the compiler's message when not
  bool cached = false;
  double ms = 0;     // time spent building (0 when cached)
};

// The library of one reference file, built into cache_dir/references/ (or a temporary folder
// when cache_dir is empty) unless a library of the same content is there. Never throws.
ReferenceLibrary build_reference_library(const std::string& file, const std::string& cache_dir);

// Builds the libraries of files, several at once; the result is in the order of files.
std::vector<ReferenceLibrary> build_reference_libraries(const std::vector<std::string>& files, const std::string& cache_dir,
                                                        int jobs);

// Worker side: reference name from the library at path, loaded once per process; an empty path
// means this program's own (a test binary linked with the references and their exports). Throws
// std::runtime_error naming the library (not loadable, another ABI, no such reference).
const ref::Function* load_reference(const std::string& library, const std::string& name);

// hkcheck's rounding as a reference's Context::round_to uses it.
double round_for_reference(const std::string& dtype, double v);

}  // namespace hk
