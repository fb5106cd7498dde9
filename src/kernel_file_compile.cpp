#include "kernel_file_compile.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <regex>
#include <sstream>

#include "compile_attribution.h"
#include "device_part.h"
#include "entry_symbols.h"

namespace hk {
namespace {

bool parse_as_hip(const std::string& backend, const std::string& path) {
  return backend == "hip" || (backend == "host" && std::filesystem::path(path).extension() == ".hip");
}

}  // namespace

std::string explain_missing_headers(const std::string& log) {
  // NVRTC: cannot open source file "x.h"; clang (hipRTC, host): 'x.h' file not found; gcc: x.h: No such file or directory.
  static const std::regex missing(R"re((cannot open source file "([^"]+)")|('([^']+)' file not found)|(([^\s:]+\.(h|hpp|cuh|hh|inc)): No such file or directory))re");
  std::istringstream in(log);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    // A line a compiler already explained (hipRTC's built-in mode, hiprtc_hints.h) keeps that.
    if (line.find("(hkcheck: ") == std::string::npos && std::regex_search(line, m, missing)) {
      const std::string header = m[2].matched ? m[2].str() : m[4].matched ? m[4].str() : m[6].str();
      line += fmt::format(" (hkcheck: {} is not on the include path: add the folder that holds it to the manifest's \"include_dirs\")", header);
    }
    out += line + "\n";
  }
  if (!out.empty() && (log.empty() || log.back() != '\n')) out.pop_back();
  return out;
}

CompileOutput compile_kernel_file(const std::function<CompileOutput(const CompileRequest&)>& compile, const CompileRequest& request,
                                  const std::string& backend) {
  CompileRequest q = request;
  std::string note;
  try {
    DevicePart part = device_part(request.source, request.source_name, request.options, parse_as_hip(backend, request.source_name));
    if (part.changed()) {
      q.source = std::move(part.source);
      std::string dropped;
      for (const std::string& d : part.dropped) dropped += (dropped.empty() ? "" : ", ") + d;
      note = fmt::format("hkcheck compiled the device part of {}: it left out the host code {}", request.source_name, dropped);
    }
  } catch (const std::exception& e) {
    note = fmt::format("hkcheck compiled {} as it is: {}", request.source_name, e.what());
  }
  // Mangled symbols go to the compiler as the name expressions that instantiate them.
  std::map<std::string, std::string> expression_of;
  for (std::string& e : q.entries)
    if (is_mangled_symbol(e)) {
      if (std::string x = name_expression_of_symbol(e); !x.empty()) expression_of[e] = x, e = x;
    }
  CompileOutput out = compile_entries(compile, q);
  for (const auto& [symbol, x] : expression_of) {
    if (const auto s = out.symbols.find(x); s != out.symbols.end()) out.symbols[symbol] = s->second;
    if (const auto err = out.entry_errors.find(x); err != out.entry_errors.end()) out.entry_errors[symbol] = err->second;
  }
  if (!out.ok) {
    out.log = explain_missing_headers(out.log);
    if (!note.empty()) out.log += "\n" + note;
  }
  return out;
}

}  // namespace hk
