#include "backends/host/source_rewrite.h"

#include "backend.h"

#include <cctype>
#include <fmt/format.h>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace hk::host {
namespace {

// Each line with comments and string literals blanked (same length), block comments followed
// across lines.
std::vector<std::string> code_lines(const std::string& source) {
  std::vector<std::string> out;
  std::istringstream in(source);
  bool in_block = false;
  for (std::string line; std::getline(in, line);) {
    std::string code(line.size(), ' ');
    for (size_t i = 0; i < line.size(); ++i) {
      if (in_block) {
        if (line.compare(i, 2, "*/") == 0) in_block = false, ++i;
      } else if (line.compare(i, 2, "//") == 0) {
        break;
      } else if (line.compare(i, 2, "/*") == 0) {
        in_block = true, ++i;
      } else if (line[i] == '"' || line[i] == '\'') {
        const char q = line[i];
        for (++i; i < line.size() && line[i] != q; ++i) i += line[i] == '\\';
      } else {
        code[i] = line[i];
      }
    }
    out.push_back(code);
  }
  return out;
}

const std::string kAmdgcnPrefix = "__builtin_amdgcn_";

// The names after kAmdgcnPrefix in text, in order ("__builtin_amdgcn_*" in a comment names none).
std::vector<std::string> amdgcn_names(const std::string& text) {
  std::vector<std::string> names;
  for (size_t at = text.find(kAmdgcnPrefix); at != std::string::npos; at = text.find(kAmdgcnPrefix, at + 1)) {
    size_t end = at + kAmdgcnPrefix.size();
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    if (end > at + kAmdgcnPrefix.size()) names.push_back(text.substr(at + kAmdgcnPrefix.size(), end - at - kAmdgcnPrefix.size()));
  }
  return names;
}

// The AMD built-ins the host prelude emulates: those its hip/hip_runtime.h names, so that the
// header alone says what is emulated. Any other is refused on its own line, with the reason,
// instead of as an undeclared name.
const std::set<std::string>& emulated_amdgcn() {
  static const std::set<std::string> kNames = [] {
    for (const auto& [name, text] : prelude_headers("host"))
      if (name == "hip/hip_runtime.h") {
        const std::vector<std::string> names = amdgcn_names(text);
        return std::set<std::string>(names.begin(), names.end());
      }
    return std::set<std::string>{};
  }();
  return kNames;
}

// The first AMD built-in of a line the host cannot run, or "".
std::string unemulated_amdgcn(const std::string& code) {
  for (const std::string& name : amdgcn_names(code))
    if (!emulated_amdgcn().count(name)) return kAmdgcnPrefix + name;
  return "";
}

}  // namespace

HostSource rewrite_for_host(const std::string& source) {
  static const std::regex extern_shared(
      R"(\bextern\s+__shared__\s+(?:(?:__align__|alignas)\s*\(\s*\d+\s*\)\s+|__attribute__\s*\(\(\s*aligned\s*\(\s*\d+\s*\)\s*\)\)\s+)?)"
      R"(([A-Za-z_][\w:]*(?:\s*<[^;]*>)?(?:\s+[A-Za-z_]\w*)*?)\s*(?:(?:__align__|alignas)\s*\(\s*\d+\s*\)\s*)?\b([A-Za-z_]\w*)\s*\[\s*\]\s*;)");
  static const std::regex asm_re(R"(\basm\s*(volatile\s*)?\()");
  static const std::regex tensor_core_re(R"(\b(wmma::|nvcuda::wmma|mma\.sync)\b)");
  const std::vector<std::string> code = code_lines(source);
  HostSource out;
  std::istringstream in(source);
  int depth = 0;  // brace depth: 0 outside every function and class
  size_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    const std::string& c = code[n];
    std::smatch m;
    if (const std::string amd = unemulated_amdgcn(c); !amd.empty()) {
      const bool mfma = amd.find("mfma") != std::string::npos || amd.find("smfmac") != std::string::npos;
      line = fmt::format("#error \"{} ({}) cannot run on the hkcheck host backend: mark the kernel \\\"gpu_only\\\" in its manifest\"",
                         amd, mfma ? "a matrix-core instruction" : "an AMD GPU built-in");
    } else if (c.size() <= 4096 && std::regex_search(c, m, asm_re)) {
      line = "#error \"inline assembly (asm) cannot run on the hkcheck host backend: mark the kernel \\\"gpu_only\\\" in its manifest\"";
    } else if (c.size() <= 4096 && std::regex_search(c, m, tensor_core_re)) {
      line = "#error \"tensor-core instructions (wmma, mma) cannot run on the hkcheck host backend: mark the kernel \\\"gpu_only\\\"\"";
    } else if (c.size() <= 4096 && std::regex_search(c, m, extern_shared)) {
      const std::string type = m[1], name = m[2];
      const std::string pointer = fmt::format("reinterpret_cast<{}*>(hk_host_rt->current()->dynamic_shared)", type);
      const size_t at = static_cast<size_t>(m.position(0)), len = static_cast<size_t>(m.length(0));
      if (depth > 0) {
        line.replace(at, len, fmt::format("{}* const {} = {};", type, name, pointer));
      } else {
        line.replace(at, len, "");
        out.preamble += fmt::format("#define {} ({})\n", name, pointer);
      }
    }
    for (char ch : c) depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
    if (depth < 0) depth = 0;
    out.text += line + "\n";
  }
  return out;
}

}  // namespace hk::host
