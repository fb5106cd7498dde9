#include "backends/host/host_compiler.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <string_view>
#include <sstream>
#include <stdexcept>

#include "platform/backend.h"
#include "process/compile_user.h"
#include "backends/host/host_prelude.h"
#include "backends/host/header_mirror.h"
#include "backends/host/source_rewrite.h"
#include "util/file_util.h"
#include "compile/line_directive.h"

namespace hk::host {
namespace fs = std::filesystem;
namespace {

// The log without gcc's "In function ...:" context lines. Line by line, not std::regex: a
// template error can make a log of megabytes, and libstdc++'s regex recurses per character.
std::string without_context_lines(const std::string& log) {
  std::string out;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    const std::string_view line(log.data() + start, end - start);
    const bool context = !line.empty() && line.back() == ':' &&
                         (line.find(": In function") != std::string_view::npos || line.find(": In member function") != std::string_view::npos ||
                          line.find(": At global scope") != std::string_view::npos);
    if (!context) {
      out.append(line);
      if (end < log.size()) out += '\n';
    }
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string entry_symbol(size_t i) { return fmt::format("e{}", i); }

std::string trampolines(const std::vector<std::string>& entries) {
  std::string s =
      "\n#line 1 \"<hkcheck host trampolines>\"\n"
      "extern \"C\" {\n"
      "const struct hk_host_runtime* hk_host_rt = 0;\n"
      "int hk_host_abi = HK_HOST_ABI_VERSION;\n"
      "int hk_host_warp_size = HK_HOST_WARP_SIZE;\n"
      "void hk_host_bind(const struct hk_host_runtime* rt) { hk_host_rt = rt; }\n"
      "}\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string quoted;
    for (char c : entries[i]) quoted += (c == '"' || c == '\\') ? ' ' : c;
    // Outside extern "C" a template's address can be taken; the trampolines themselves are C.
    s += fmt::format("#line 1 \"<entry '{0}'>\"\n"
                     "extern \"C\" int hk_host_arity_{1}(void) {{ return hk_host_arity(&{2}); }}\n"
                     "extern \"C\" const char* hk_host_params_{1}(void) {{ return hk_host_params(&{2}); }}\n"
                     "extern \"C\" void hk_host_entry_{1}(void** args) {{ hk_host_invoke(&{2}, args); }}\n"
                     // The entry's text, by which the backend finds its __shared__ arrays (static_shared.h).
                     "extern \"C\" const char hk_host_name_{1}[] = \"{0}\";\n",
                     quoted, entry_symbol(i), entries[i]);
  }
  return s;
}

namespace {

// The flags of every kernel compile before the manifest's own; the precompiled prelude needs
// exactly these.
std::vector<std::string> base_flags(const CompilerInfo& cxx, int warp_size, const std::string& arch, bool races) {
  std::vector<std::string> flags = {"-std=c++17", "-O2", "-fPIC", "-fno-strict-aliasing", "-DHK_BACKEND_HOST=1",
                                    fmt::format("-DHK_HOST_WARP_SIZE={}", warp_size)};
  // The target's macro, as hipRTC defines it: the prelude's matrix-core built-ins and a kernel's
  // own `#if defined(__gfx950__)` paths follow it.
  if (arch.rfind("gfx", 0) == 0) flags.push_back(fmt::format("-D__{}__=1", arch));
  // And __CUDA_ARCH__ for an NVIDIA target, as NVRTC defines it (sm_90a: 900); the prelude
  // defines it after the system headers (hk_host_intrinsics.h).
  if (arch.rfind("sm_", 0) == 0) flags.push_back(fmt::format("-DHK_HOST_CUDA_ARCH={}", std::atoi(arch.c_str() + 3) * 10));
  // __shared__ is a function-local thread_local here, which g++ makes one symbol (STB_GNU_UNIQUE)
  // across every library loaded in the worker: two builds of a file would share it. clang makes
  // no such symbols and does not know the option.
  if (!is_clang(cxx)) flags.push_back("-fno-gnu-unique");
  // An index past a fixed-size array (a local or __shared__ one, a struct's member) reads or writes
  // another variable unseen, on a GPU as on the host: checked, and reported by hk_host_bounds.c.
  flags.push_back("-fsanitize=bounds");
  // g++ warns that it cannot instrument fences; hk_host_races.c gets every fence as a call.
  // Line tables (-g1) let a race report name the source lines (source_line.h); DWARF 4, whose
  // file numbering this addr2line reads right (with DWARF 5 it named the generated file).
  if (races) flags.insert(flags.end(), {"-fsanitize=thread", "-g1", "-gdwarf-4", is_clang(cxx) ? "-Wno-unknown-warning-option" : "-Wno-tsan"});
  return flags;
}

// A kernel's own -D macros, as #define lines for the top of its file, and the options left. The
// prelude is force-included before them, so g++ can use its precompiled header: the system
// headers it includes name T, A, B and F, and a -D of any of those makes g++ refuse the .gch.
// Macros starting with '_', and NDEBUG, stay options: they are meant for the system headers.
struct SplitOptions {
  std::string defines;
  std::vector<std::string> rest;
};

SplitOptions split_defines(const std::vector<std::string>& options) {
  SplitOptions out;
  for (size_t i = 0; i < options.size(); ++i) {
    std::string macro;
    if (options[i] == "-D" && i + 1 < options.size()) macro = options[i + 1];
    else if (options[i].rfind("-D", 0) == 0) macro = options[i].substr(2);
    const std::string name = macro.substr(0, macro.find('='));
    const bool movable = !name.empty() && name[0] != '_' && name != "NDEBUG" && name.find_first_of("( \t") == std::string::npos;
    if (!movable) {
      out.rest.push_back(options[i]);
      continue;
    }
    if (options[i] == "-D") ++i;
    const size_t eq = macro.find('=');
    out.defines += "#define " + name + " " + (eq == std::string::npos ? "1" : macro.substr(eq + 1)) + "\n";
  }
  if (!out.defines.empty()) out.defines = "#line 1 \"<command-line>\"\n" + out.defines;
  return out;
}

}  // namespace

HostCompileResult compile_shared_library(const CompilerInfo& cxx, const std::string& source, const std::string& source_name,
                                         const std::vector<std::string>& options, const std::vector<std::string>& entries,
                                         int warp_size, const std::string& arch, const std::string& cache_dir, bool races) {
  HostCompileResult out;
  CompileFolder dir;
  const std::vector<std::string> base = base_flags(cxx, warp_size, arch, races);
  std::string include = cached_prelude_folder(cxx, base, cache_dir);
  if (include.empty()) {
    include = dir.path + "/include";
    write_prelude(include);
  }
  // #line keeps the compiler's messages pointing at the kernel file the user wrote.
  const HostSource rewritten = rewrite_for_host(source);
  const SplitOptions split = split_defines(mirror_headers_for_host(rewritten.text, source_name, options, dir.path + "/headers").options);
  write_whole_file(dir.path + "/kernel.cpp",
        split.defines + rewritten.preamble + line_directive(1, source_name) + "\n" + rewritten.text + "\n" + trampolines(entries));
  give_to_compile_user(dir.path);  // under root: the compile user writes the object and library here
  std::vector<std::string> argv = {cxx.path};
  argv.insert(argv.end(), base.begin(), base.end());
  argv.insert(argv.end(), {"-c", "-I", include, "-include", "hk_host.h"});
  argv.insert(argv.end(), split.rest.begin(), split.rest.end());
  argv.insert(argv.end(), {"-x", "c++", dir.path + "/kernel.cpp", "-o", dir.path + "/kernel.o"});
  // No limit of its own: the case's --timeout bounds it (the worker is killed, and the compile with it).
  CommandRun r = run_compiler(argv, dir.path + "/compile.log", 0, dir.path);
  // Linked without -fsanitize, which would make the library need the sanitizer's runtime: the
  // entry points the instrumentation calls are hkcheck's own.
  // "-x c" before each file: g++ reads a second .c after one "-x c" as C++, mangling its names.
  std::vector<std::string> link = {cxx.path, "-shared", "-fPIC", "-O2", "-I", include, dir.path + "/kernel.o", "-x", "c", include + "/hk_host_bounds.c"};
  if (races) link.insert(link.end(), {"-x", "c", include + "/hk_host_races.c"});
  link.insert(link.end(), {"-o", dir.path + "/kernel.so"});
  std::string log = r.output;  // the compiler's warnings, kept after a link that succeeds
  if (r.started && r.exit_code == 0) {
    r = run_compiler(link, dir.path + "/link.log", 0, dir.path);
    log += r.output;
  }
  out.log = log;
  // Paths of the temporary folder mean nothing to the reader, and "In function ...:" context lines
  // would push the error itself off the first line, which reports show.
  // The prelude's folder reads "include/" wherever it lies.
  const std::string prelude_root = fs::path(include).parent_path().string() + "/";
  for (size_t p; (p = out.log.find(prelude_root)) != std::string::npos;) out.log.erase(p, prelude_root.size());
  for (size_t p; (p = out.log.find(dir.path + "/headers/")) != std::string::npos;) out.log.erase(p, dir.path.size() + 8);
  for (size_t p; (p = out.log.find(dir.path + "/")) != std::string::npos;) out.log.erase(p, dir.path.size() + 1);
  out.log = without_context_lines(out.log);
  out.log.erase(0, out.log.find_first_not_of('\n'));
  if (!r.started || r.exit_code != 0) return out;
  out.ok = read_output(dir.path + "/kernel.so", &out.library) && !out.library.empty();
  for (size_t i = 0; i < entries.size(); ++i) out.symbols[entries[i]] = entry_symbol(i);
  if (!out.ok) out.log += "\nthe compiler produced no library";
  return out;
}

}  // namespace hk::host
