#include "model/allowed_options.h"

#include <algorithm>
#include <fmt/format.h>
#include <regex>

#include "model/include_options.h"
#include "platform/backend_table.h"

namespace hk {
// Named, not anonymous: a unity batch shares one anonymous namespace among its files.
namespace option_rules {

// Words that make a flag write, read or load a file of its choosing, or run a program: a flag
// spelled with one is refused even where its shape is allowed (-fdump-tree-all, -fplugin=x,
// -mllvm -info-output-file=x, -Xclang -load).
constexpr const char* kDeniedWords[] = {"plugin", "load", "dump", "profile", "coverage", "record", "output", "file", "dir",
                                        "path", "trace", "save", "stats", "crash", "module", "use-ld", "wrapper", "stack-usage",
                                        "callgraph", "specs", "remarks"};

bool has_denied_word(const std::string& o) {
  return std::any_of(std::begin(kDeniedWords), std::end(kDeniedWords), [&](const char* w) { return o.find(w) != std::string::npos; });
}

bool matches(const std::string& o, const std::regex& r) { return std::regex_match(o, r); }

// Every compiler: defines, the standard, warnings (never -Wl, -Wa or -Wp: no commas), levels.
bool common(const std::string& o) {
  static const std::regex r(
      "-[DU].+|--(define|undefine)-macro=.+|--?std=[A-Za-z0-9+]+|-w|-W[A-Za-z0-9_=+-]*|-O[0-3sgz]?|-Ofast|-g[0-3]?|-pedantic(-errors)?");
  return matches(o, r);
}

// A code-generation flag of clang or g++: -f[no-]name[=value], -m[no-]name[=value], no path.
bool codegen_flag(const std::string& o) {
  static const std::regex r("-[fm][a-z0-9][a-z0-9-]*(=[A-Za-z0-9_.,+-]*)?");
  return matches(o, r) && o != "-mllvm" && !has_denied_word(o);
}

bool nvrtc(const std::string& o) {
  static const std::regex r(
      "--?(use_fast_math|extra-device-vectorization|restrict|expt-relaxed-constexpr|extended-lambda|expt-extended-lambda|"
      "device-as-default-execution-space|default-device|device-int128|display-error-number|no-display-error-number|lineinfo|"
      "generate-line-info|G|device-debug|dlink-time-opt|dlto|no-source-include|disable-warnings|minimal)|"
      "--?(fmad|ftz|prec-div|prec-sqrt|rdc|relocatable-device-code|dopt|Ofast-compile|split-compile|split-compile-extended|"
      "optimization-info|maxrregcount|diag-suppress|diag-error|diag-warn|diag_suppress|diag_error|diag_warn|builtin-move-forward|"
      "builtin-initializer-list|jump-table-density)=[A-Za-z0-9_,.+-]*|"
      "--ptxas-options=[A-Za-z0-9_,.=+ -]*");
  return matches(o, r) && !has_denied_word(o);
}

bool hiprtc(const std::string& o) {
  static const std::regex r("--hiprtc-no-builtin-header|-nogpu(inc|lib)");
  return matches(o, r) || codegen_flag(o);
}

// The argument of -mllvm or -Xclang: one flag, no path, nothing that writes or loads.
bool clang_pass_through(const std::string& a) {
  static const std::regex r("[+-]{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*(=[A-Za-z0-9_.,+-]*)?");
  return matches(a, r) && a != "-o" && a.rfind("-M", 0) != 0 && !has_denied_word(a);
}

std::string compiler_name(const std::string& backend) {
  const BackendRow* r = find_backend(backend);
  return r ? r->compiler_title : "any compiler";
}

// Each compiler's own flags; an unknown backend (a check for any of them) takes every one's.
bool allowed_by(const std::string& o, const std::string& backend) {
  if (common(o)) return true;
  const BackendRow* r = find_backend(backend);
  if (!r) return nvrtc(o) || hiprtc(o) || codegen_flag(o);
  switch (r->id) {
    case BackendId::cuda: return nvrtc(o);
    case BackendId::hip: return hiprtc(o);
    case BackendId::host: return codegen_flag(o);
  }
  return false;
}

// Only hipRTC is clang: -mllvm and -Xclang mean nothing to NVRTC or the host's compiler.
bool clang_based(const std::string& backend) {
  const BackendRow* r = find_backend(backend);
  return !r || r->id == BackendId::hip;
}

std::string refusal(const std::string& o, const std::string& backend, const std::string& why) {
  return fmt::format("compiler option '{}' is not allowed for {}: {} (docs/manifest.md, \"Compiler options\")", o.substr(0, 200),
                     compiler_name(backend), why);
}

}  // namespace option_rules

using namespace option_rules;

std::optional<RefusedOption> refused_option(const std::vector<std::string>& options, const std::string& backend) {
  const char* kWhat = "a manifest may pass defines, include folders and files, the standard, warnings, optimisation levels and the "
                      "compiler's code-generation flags, none of which names a path";
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    if (const auto path = include_option_at(options, i)) {  // a folder or file: read where the compiler reads headers
      i += path->strings - 1;
      continue;
    }
    if (o == "-mllvm" || o == "-Xclang") {
      if (!clang_based(backend)) return RefusedOption{i, refusal(o, backend, "it is clang's, and this compiler is not clang")};
      if (i + 1 >= options.size()) return RefusedOption{i, refusal(o, backend, "it needs an argument: the next string")};
      if (!clang_pass_through(options[i + 1]))
        return RefusedOption{i + 1, refusal(o + " " + options[i + 1], backend, "its argument must be one flag that names no file and loads nothing")};
      ++i;
      continue;
    }
    if (!allowed_by(o, backend)) return RefusedOption{i, refusal(o, backend, kWhat)};
  }
  return std::nullopt;
}

}  // namespace hk
