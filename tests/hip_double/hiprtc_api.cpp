// The double's hipRTC: a program is compiled by hkcheck's host backend compiler for the host
// profile of its --offload-arch target (target_profile.h), with the options that decide the
// kernel (hiprtc_options.h). The "code object" is the host library, with a table of its kernels
// (code_object.h); a name expression's lowered name is the expression itself, which
// hipModuleGetFunction then finds in that table. The headers handed over in memory are written to
// a folder searched after the host prelude's and the system's (-idirafter), so the host's own
// versions of hkcheck's headers and of <hip/...> win and a name only the caller has is still found.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "backends/host/host_compiler.h"
#include "code_object.h"
#include "platform/compiler.h"
#include "error_names.h"
#include "util/fnv1a.h"
#include "hiprtc_options.h"
#include "report.h"
#include "run/run_environment.h"
#include "target_profile.h"

struct _hiprtcProgram {
  std::string source, name;
  std::vector<std::pair<std::string, std::string>> headers;  // include name -> text
  std::vector<std::string> expressions;
  bool compiled = false;
  std::string log, code;
  std::map<std::string, std::string> lowered;  // name expression -> lowered name
};

namespace hk::hip_double {
namespace {
namespace fs = std::filesystem;

std::mutex programs_mu;
std::set<hiprtcProgram> programs;

bool is_program(hiprtcProgram p) {
  std::lock_guard<std::mutex> lock(programs_mu);
  return programs.count(p) > 0;
}

// One host compiler per profile, made on first use.
Compiler& compiler_for(const HostProfile& profile) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Compiler>> compilers;
  std::lock_guard<std::mutex> lock(mu);
  auto& c = compilers[profile.name];
  if (!c) c = open_compiler("host", profile.arch, HostOptions{profile.name, 0, default_cache_dir()});
  return *c;
}

// hipRTC's version is 9.0 in every ROCm; the double's minor number is a fingerprint of the host
// compiler and prelude it compiles with. hkcheck keys its compile cache by the version, so a
// library built against another prelude is never taken from the cache.
int version_fingerprint() {
  static const int minor = [] {
    std::string text = host::find_compiler().version + "\n";
    for (const auto& [name, header] : prelude_headers("host")) text += name + "\n" + header + "\n";
    return 1000 + static_cast<int>(fnv1a(text) % 9000);
  }();
  return minor;
}

// The in-memory headers of a compile as files, for its lifetime.
struct HeaderFolder {
  explicit HeaderFolder(const std::vector<std::pair<std::string, std::string>>& headers) {
    if (headers.empty()) return;
    std::string tmpl = (fs::temp_directory_path() / fmt::format("hkcheck-hip-double-{}-XXXXXX", getpid())).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error(fmt::format("cannot create a folder for the headers: {}", std::strerror(errno)));
    path = tmpl;
    for (const auto& [name, text] : headers) {
      const fs::path file = fs::path(path) / name;
      fs::create_directories(file.parent_path());
      std::ofstream out(file, std::ios::binary);
      out << text;
      if (!out) throw std::runtime_error("cannot write " + file.string());
    }
  }
  ~HeaderFolder() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  std::string path;
};

bool escapes(const std::string& include_name) {
  return include_name.empty() || include_name[0] == '/' || include_name.find("..") != std::string::npos;
}

hiprtcResult compile(_hiprtcProgram& p, const std::vector<std::string>& options) {
  HostCompileOptions host = host_compile_options(options);
  const std::string arch = host.arch.empty() ? device_arch() : host.arch;
  const HostProfile* profile = profile_for_arch(arch);
  if (!profile) {
    p.log = fmt::format("hkcheck's HIP test double compiles for {}, not for {}\n", profile_arches(), arch);
    return HIPRTC_ERROR_INVALID_OPTION;
  }
  const HeaderFolder headers(p.headers);
  if (!headers.path.empty()) host.options.insert(host.options.end(), {"-idirafter", headers.path});
  const CompileOutput out = compiler_for(*profile).compile(CompileRequest{p.source, p.name, host.options, p.expressions});
  p.compiled = true;
  p.log = out.log;
  if (!out.ok) return HIPRTC_ERROR_COMPILATION;
  CodeObject code{out.binary, {}};
  for (const auto& [expression, symbol] : out.symbols) {
    code.entries[expression] = symbol;
    p.lowered[expression] = expression;
  }
  p.code = pack_code_object(code);
  return HIPRTC_SUCCESS;
}

}  // namespace
}  // namespace hk::hip_double

using namespace hk::hip_double;

extern "C" {

const char* hiprtcGetErrorString(hiprtcResult r) { return hiprtc_error_name(r); }

hiprtcResult hiprtcVersion(int* major, int* minor) {
  if (!major || !minor) return HIPRTC_ERROR_INVALID_INPUT;
  try {
    *major = 9;
    *minor = version_fingerprint();
  } catch (const std::exception& e) {
    report("hiprtcVersion", e.what());
    return HIPRTC_ERROR_INTERNAL_ERROR;
  }
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int num_headers, const char** headers,
                                 const char** include_names) {
  if (!prog || !src || num_headers < 0 || (num_headers > 0 && (!headers || !include_names))) return HIPRTC_ERROR_INVALID_INPUT;
  auto p = std::make_unique<_hiprtcProgram>();
  p->source = src;
  p->name = name ? name : "CompileSource";
  for (int i = 0; i < num_headers; ++i) {
    if (!headers[i] || !include_names[i] || escapes(include_names[i])) return HIPRTC_ERROR_INVALID_INPUT;
    p->headers.emplace_back(include_names[i], headers[i]);
  }
  std::lock_guard<std::mutex> lock(programs_mu);
  *prog = p.release();
  programs.insert(*prog);
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
  if (!prog) return HIPRTC_ERROR_INVALID_INPUT;
  std::lock_guard<std::mutex> lock(programs_mu);
  if (!programs.erase(*prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  delete *prog;
  *prog = nullptr;
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char* expression) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!expression) return HIPRTC_ERROR_INVALID_INPUT;
  if (prog->compiled) return HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
  prog->expressions.emplace_back(expression);
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int num_options, const char** options) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (num_options < 0 || (num_options > 0 && !options)) return HIPRTC_ERROR_INVALID_INPUT;
  std::vector<std::string> opts;
  for (int i = 0; i < num_options; ++i) {
    if (!options[i]) return HIPRTC_ERROR_INVALID_INPUT;
    opts.emplace_back(options[i]);
  }
  try {
    return compile(*prog, opts);
  } catch (const std::exception& e) {  // no C++ compiler, no temporary folder
    prog->log = std::string("hkcheck's HIP test double could not compile: ") + e.what() + "\n";
    return HIPRTC_ERROR_INTERNAL_ERROR;
  }
}

hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char* expression, const char** lowered) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!expression || !lowered) return HIPRTC_ERROR_INVALID_INPUT;
  if (!prog->compiled) return HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
  const auto it = prog->lowered.find(expression);
  if (it == prog->lowered.end()) return HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
  *lowered = it->second.c_str();
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* size) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!size) return HIPRTC_ERROR_INVALID_INPUT;
  *size = prog->log.size() + 1;
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!log) return HIPRTC_ERROR_INVALID_INPUT;
  std::memcpy(log, prog->log.c_str(), prog->log.size() + 1);
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* size) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!size) return HIPRTC_ERROR_INVALID_INPUT;
  *size = prog->code.size();
  return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  if (!is_program(prog)) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!code) return HIPRTC_ERROR_INVALID_INPUT;
  std::memcpy(code, prog->code.data(), prog->code.size());
  return HIPRTC_SUCCESS;
}

}  // extern "C"
