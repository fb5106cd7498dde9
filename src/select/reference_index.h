// Which references a project has: the HK_REFERENCE(name) definitions of its reference files and
// of hkcheck's own, found without building anything (refs/runtime_references.h builds them).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hk {

// The names a reference source defines with HK_REFERENCE(name), comments skipped.
std::vector<std::string> reference_names_in(const std::string& source);

// Which file defines each reference of the folders (their *.cpp, not recursively) and files given.
// A name defined again in a file outside `builtin` replaces the one of `builtin` (a project's own
// reference of a built-in's name), with a note; any other name defined twice is an error.
struct ReferenceIndex {
  std::map<std::string, std::string> file_of;  // reference name -> its source file
  std::vector<std::string> errors;             // a name defined twice (both files named), an unreadable file
  std::vector<std::string> searched;           // the folders and files looked at, for messages
  std::map<std::string, std::string> notes;    // reference name -> a note for the results (it overrides a built-in one)
  std::string runtime;                         // the folder whose reference.h builds the libraries ("": the built-in one)
};
ReferenceIndex scan_references(const std::vector<std::string>& folders, const std::vector<std::string>& files,
                               const std::string& builtin = "");

// hkcheck's own references and reference.h: <prefix>/share/hkcheck/references beside an installed
// binary, else the source tree's references/ this binary was built from.
std::string builtin_references_dir();

// Whether folder holds a reference runtime (reference.h and reference_context.cpp): the
// references/ of an hkcheck checkout, or of a copy of one.
bool holds_reference_runtime(const std::string& folder);

}  // namespace hk
