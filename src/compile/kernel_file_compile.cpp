#include "compile/kernel_file_compile.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <regex>
#include <sstream>

#include "model/allowed_options.h"
#include "compile/compile_attribution.h"
#include "compile/device_part.h"
#include "compile/device_part_headers.h"
#include "compile/entry_symbols.h"
#include "compile/line_directive.h"
#include "compile/vendor_headers.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

bool parse_as_hip(const std::string& backend, const std::string& path) {
  const BackendRow& hip = backend_row(BackendId::hip);
  return backend == hip.name || (on_cpu(backend) && std::filesystem::path(path).extension() == std::string(".") + hip.source_extension);
}

}  // namespace

std::string explain_missing_headers(const std::string& log, const std::string& backend) {
  // NVRTC: cannot open source file "x.h"; clang (hipRTC, host): 'x.h' file not found; gcc: x.h: No such file or directory.
  static const std::regex missing(R"re((cannot open source file "([^"]+)")|('([^']+)' file not found)|(([^\s:]+\.(h|hpp|cuh|hh|inc)): No such file or directory))re");
  std::istringstream in(log);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    // A line a compiler already explained (hipRTC's built-in mode, hiprtc_hints.h) keeps that.
    // A header found but not readable is on the path: permission_hint says what to do.
    if (line.find("(hkcheck: ") == std::string::npos && line.find("Permission denied") == std::string::npos &&
        std::regex_search(line, m, missing)) {
      const std::string header = m[2].matched ? m[2].str() : m[4].matched ? m[4].str() : m[6].str();
      const BackendRow* theirs = backend_for_source_vendor(vendor_of_header(header));
      const BackendRow* ours = find_backend(backend);
      if (theirs && ours && *ours->source_vendor && theirs != ours)
        line += fmt::format(" (hkcheck: {0} is {1}'s own header, so this file is {1} source: give the kernel one file per vendor, "
                            "\"source\": {{\"{2}\": \"k.{3}\", \"{4}\": \"k.{5}\"}}, or {{\"{2}\": ...}} alone to run it on {1} only "
                            "(docs/porting.md))",
                            header, theirs->title, theirs->source_vendor, theirs->source_extension, ours->source_vendor,
                            ours->source_extension);
      else
        line += fmt::format(" (hkcheck: {} is not on the include path: add the folder that holds it to the manifest's \"include_dirs\")", header);
    }
    out += line + "\n";
  }
  if (!out.empty() && (log.empty() || log.back() != '\n')) out.pop_back();
  return out;
}

namespace {

// The request with the device part of its file as the source (with roots: of those kernels
// alone), the project headers' too; note says what was left out. Throws when clang cannot parse.
CompileRequest with_device_part(const CompileRequest& request, bool hip, const std::vector<std::string>& roots, std::string* note) {
  CompileRequest q = request;
  DevicePart part = device_part(request.source, request.source_name, request.options, hip, roots);
  put_in_project_headers(part, request.source_name, request.options, hip);
  if (!part.changed()) return q;
  q.source = std::move(part.source);
  // What the dropped host-only headers gave the device code goes first; #line keeps the file's lines.
  if (!part.device_headers.empty()) {
    std::string first;
    for (const std::string& h : part.device_headers) first += "#include <" + h + ">\n";
    q.source = first + line_directive(1, request.source_name) + "\n" + q.source;
  }
  for (const std::string& d : part.include_dirs) q.options.push_back("-I" + d);
  std::string dropped;
  for (const std::string& d : part.dropped) dropped += (dropped.empty() ? "" : ", ") + d;
  if (note) *note = fmt::format("hkcheck compiled the device part of {}: it left out the host code {}", request.source_name, dropped);
  return q;
}

// After the file failed (failed): the kernels the manifests name, without the file's others;
// then, if that fails too, each entry alone, so that a kernel that does not compile (an intrinsic
// the target lacks) fails its own entry only and the rest compile together.
CompileOutput compile_kernels_apart(const std::function<CompileOutput(const CompileRequest&)>& compile, const CompileRequest& request,
                                    const std::string& backend, bool hip, const std::string& failed_source, CompileOutput failed) {
  const CompileRequest named = with_device_part(request, hip, request.entries, nullptr);
  if (named.source != failed_source) {
    CompileOutput out = compile_entries(compile, named);
    if (out.ok) return out;
  }
  if (request.entries.size() < 2) return failed;
  std::vector<std::string> good;
  std::map<std::string, std::string> bad;
  for (const std::string& e : request.entries) {
    CompileRequest one = with_device_part(request, hip, {e}, nullptr);
    one.entries = {e};
    const CompileOutput alone = compile(one);
    if (alone.ok) good.push_back(e);
    else bad[e] = compile_error_summary(explain_missing_headers(alone.log, backend), one.source, one.source_name, e, {e}) +
                  " (compiled alone: the file's other kernels compile without it)";
  }
  if (good.empty() || bad.empty()) return failed;
  CompileRequest together = with_device_part(request, hip, good, nullptr);
  together.entries = good;
  CompileOutput out = compile(together);
  if (!out.ok) return failed;
  for (const auto& [e, why] : bad) out.entry_errors[e] = why;
  return out;
}

}  // namespace

CompileOutput compile_kernel_file(const std::function<CompileOutput(const CompileRequest&)>& compile, const CompileRequest& request,
                                  const std::string& backend) {
  // hkcheck may run as root: an option that runs, loads or writes what it names never reaches a
  // compiler, nor the device-part parse below (allowed_options.h).
  if (const auto refused = refused_option(request.options, backend)) return CompileOutput{false, "", "hkcheck: " + refused->message, {}, {}};
  const bool hip = parse_as_hip(backend, request.source_name);
  // Mangled symbols go to the compiler as the name expressions that instantiate them.
  CompileRequest named = request;
  std::map<std::string, std::string> expression_of;
  for (std::string& e : named.entries)
    if (is_mangled_symbol(e)) {
      if (std::string x = name_expression_of_symbol(e); !x.empty()) expression_of[e] = x, e = x;
    }
  CompileRequest q = named;
  std::string note;
  bool parsed = true;
  try {
    q = with_device_part(named, hip, {}, &note);
  } catch (const std::exception& e) {
    note = fmt::format("hkcheck compiled {} as it is: {}", request.source_name, e.what());
    parsed = false;
  }
  CompileOutput out = compile_entries(compile, q);
  if (!out.ok && parsed) {
    try {
      out = compile_kernels_apart(compile, named, backend, hip, q.source, std::move(out));
    } catch (const std::exception&) {
      // the first answer stands
    }
  }
  for (const auto& [symbol, x] : expression_of) {
    if (const auto s = out.symbols.find(x); s != out.symbols.end()) out.symbols[symbol] = s->second;
    if (const auto err = out.entry_errors.find(x); err != out.entry_errors.end()) out.entry_errors[symbol] = err->second;
  }
  if (!out.ok) {
    out.log = explain_missing_headers(out.log, backend);
    if (!note.empty()) out.log += "\n" + note;
  }
  return out;
}

}  // namespace hk
