// Which function a compile error belongs to. A file is compiled once for all its entries, so
// one broken kernel fails them all; each entry's cases say whether the fault is in their own
// kernel or in another function of the file, and the full log is kept once per run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/backend.h"

namespace hk {

// A function defined in a source: its name (unqualified, without template arguments) and the
// lines its definition spans, 1-based.
struct SourceFunction {
  std::string name;
  int first_line = 0, last_line = 0;
};

// The functions defined in source, found by a light scan (comments, strings and preprocessor
// lines skipped): a `{` after a parameter list that is not a control statement's.
std::vector<SourceFunction> source_functions(const std::string& source);

// One error of a compiler log: where, and what. function: the function of the source it falls
// in (or the kernel a GPU assembler names, or the entry a name expression failed for); empty
// when the error lies elsewhere (a header).
struct CompileErrorSite {
  std::string file;
  int line = 0;
  std::string text;
  std::string function;
  bool names_entry = false;  // the error is an entry that names no kernel (a name expression)
};

// The errors of a log from NVRTC, hipRTC/clang, ptxas or the host's gcc/clang, in order.
std::vector<CompileErrorSite> compile_error_sites(const std::string& log, const std::string& source, const std::string& source_name,
                                                  const std::vector<std::string>& entries);

// The unqualified function name of an entry: "ns::act<float, f<2>>" -> "act".
std::string entry_function(const std::string& entry);

// What the cases of entry say when the file did not compile: the first error in entry's own
// function, or which other function the file fails because of, or the first error of the log.
std::string compile_error_summary(const std::string& log, const std::string& source, const std::string& source_name,
                                  const std::string& entry, const std::vector<std::string>& entries);

// Compiles request with compile; when the only errors are entries that name no kernel of the
// file (a typo in one manifest), compiles again without them, so that the file's other entries
// still run: the missing ones are listed in CompileOutput::entry_errors with the compiler's words.
CompileOutput compile_entries(const std::function<CompileOutput(const CompileRequest&)>& compile, const CompileRequest& request);

}  // namespace hk
