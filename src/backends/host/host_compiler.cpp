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

constexpr double kVersionLimitSeconds = 60;

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

// Each folder's name carries its process id; one whose process is dead is removed.
void remove_abandoned_compile_folders() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("hkcheck-host-", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 13, nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
}

namespace {

// A private folder that goes away with the compile.
struct TempDir {
  TempDir() {
    static const bool swept = (remove_abandoned_compile_folders(), true);  // once per process
    (void)swept;
    std::string tmpl = (fs::temp_directory_path() / fmt::format("hkcheck-host-{}-XXXXXX", getpid())).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error(fmt::format("cannot create a temporary folder: {}", std::strerror(errno)));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

namespace {

// The compile's output, read without following a link (the compile user made it).
bool read_output(const std::string& path, std::string* bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  bytes->clear();
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) bytes->append(buf, static_cast<size_t>(n));
  close(fd);
  return n == 0;
}

// A compiler run as the compile user (compile_user.h). Under root it works in `folder`, one already
// given to that user that holds its outputs; or, without one, in a folder of its own, where its
// "-o" output is written and from where root moves it to where argv named it.
CommandRun run_compiler(std::vector<std::string> argv, const std::string& log_path, const CommandBounds& bounds,
                        const std::string& folder = "") {
  std::optional<TempDir> stage;
  std::string work = folder, wanted;
  if (compiles_unprivileged() && work.empty()) {
    stage.emplace();
    give_to_compile_user(stage->path);
    work = stage->path;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-o") wanted = fs::absolute(std::exchange(argv[i + 1], work + "/output")).string();
  }
  CompileAccess access(work);
  const std::vector<std::string> reached = access.reach_all(argv);  // before access.descriptors() is read
  CommandRun r = run_bounded(reached, log_path, bounds, {access.descriptors(), work, true});
  r.output = access.paths_in(r.output);
  if (r.exit_code != 0) r.output += permission_hint(r.output);
  if (!wanted.empty() && r.started && r.exit_code == 0) {
    std::string bytes;
    if (!read_output(work + "/output", &bytes)) {
      r.exit_code = -1;
      r.output += "\nhkcheck: the compiler's output is missing or not a plain file";
    } else {
      write(wanted, bytes);
      struct stat st {};
      if (stat((work + "/output").c_str(), &st) == 0) chmod(wanted.c_str(), st.st_mode & 0755);  // a library stays executable
    }
  }
  return r;
}

}  // namespace

CommandRun run_command(const std::vector<std::string>& argv, const std::string& log_path, const CommandBounds& bounds) {
  return run_bounded(argv, log_path, bounds);
}

CommandRun run_command_into(std::vector<std::string> argv, const std::string& path, const CommandBounds& bounds, const BeforeRename& before_rename) {
  const std::string tmp = temporary_beside(path);
  argv.insert(argv.end(), {"-o", tmp});
  CommandRun r = run_compiler(argv, tmp + ".log", bounds);
  std::error_code ec;
  fs::remove(tmp + ".log", ec);
  std::string refused;
  if (r.started && r.exit_code == 0 && before_rename && !before_rename(tmp, &refused)) {
    r.exit_code = -1;
    r.output += refused;
  }
  if (r.started && r.exit_code == 0) {
    fs::rename(tmp, path, ec);
    if (!ec) return r;
    r.exit_code = -1;
    r.output += fmt::format("cannot move {} into place: {}", path, ec.message());
  }
  fs::remove(tmp, ec);
  return r;
}

bool is_clang(const CompilerInfo& cxx) { return cxx.version.find("clang") != std::string::npos; }

namespace {
CommandRun version_of(const std::string& path, const TempDir& dir) {
  return run_bounded({path, "--version"}, dir.path + "/version.txt", kVersionLimitSeconds);
}

// The newest clang++-N on PATH, else clang++: tile libraries are C++20 as clang 17 reads it
// (typename-less dependent types, a discarded static_assert(false)) and use __bf16 vectors.
std::string newest_clang() {
  std::string best = "clang++";
  int best_version = -1;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("clang++-", 0) != 0 || name.size() == 8 || name.find_first_not_of("0123456789", 8) != std::string::npos) continue;
      const int v = std::stoi(name.substr(8));
      if (v > best_version) best_version = v, best = name;
    }
  }
  return best;
}
}  // namespace

CompilerInfo find_compiler(bool prefer_clang) {
  CompilerInfo c;
  TempDir dir;
  if (const char* p = std::getenv("HKCHECK_HOST_CXX"); p && *p) c.path = p;
  // HIP is clang's dialect (ext_vector_type, __fp16 vectors), which AMD tile libraries use.
  else if (const std::string clang = prefer_clang ? newest_clang() : "";
           !clang.empty() && [&] { const CommandRun r = version_of(clang, dir); return r.started && r.exit_code == 0; }())
    c.path = clang;
  else if (const char* p = std::getenv("CXX"); p && *p) c.path = p;
  else c.path = "c++";
  const CommandRun r = version_of(c.path, dir);
  if (!r.started || r.exit_code != 0)
    throw BackendUnavailable(fmt::format("the host backend needs a C++ compiler: {} (set HKCHECK_HOST_CXX or CXX)",
                                         r.started ? fmt::format("'{} --version' exited with {}", c.path, r.exit_code) : r.output));
  c.version = r.output.substr(0, r.output.find('\n'));
  return c;
}

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
  TempDir dir;
  const std::vector<std::string> base = base_flags(cxx, warp_size, arch, races);
  std::string include = cached_prelude_folder(cxx, base, cache_dir);
  if (include.empty()) {
    include = dir.path + "/include";
    write_prelude(include);
  }
  // #line keeps the compiler's messages pointing at the kernel file the user wrote.
  const HostSource rewritten = rewrite_for_host(source);
  const SplitOptions split = split_defines(mirror_headers_for_host(rewritten.text, source_name, options, dir.path + "/headers").options);
  write(dir.path + "/kernel.cpp",
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
