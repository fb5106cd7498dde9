#include "backends/host/source_rewrite.h"

#include "platform/backend.h"

#include <cctype>
#include <cstring>
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

// The AMD built-ins the host prelude emulates: those its hip/hip_runtime.h and hip/hk_host_amdgcn_*
// headers name, so that the headers alone say what is emulated. Any other is refused on its own
// line, with the reason, instead of as an undeclared name.
const std::set<std::string>& emulated_amdgcn() {
  static const std::set<std::string> kNames = [] {
    std::set<std::string> out;
    for (const auto& [name, text] : prelude_headers("host"))
      if (name == "hip/hip_runtime.h" || name.rfind("hip/hk_host_amdgcn_", 0) == 0)
        for (const std::string& n : amdgcn_names(text)) out.insert(n);
    return out;
  }();
  return kNames;
}

// What the instructions of an asm statement's template (its string literals, as written) ask of
// the host: nothing (they only wait or schedule: a fiber's accesses are complete when they
// return), the block barrier (s_barrier), or what it cannot do (the first other instruction).
struct AsmMeaning {
  bool barrier = false;
  std::string refused;
};
AsmMeaning asm_meaning(const std::string& strings) {
  static const std::regex piece(R"re("((?:[^"\\]|\\.)*)")re");
  static const std::regex ordering(R"(^(s_waitcnt|s_waitcnt_\w+|s_nop|s_setprio|s_sched_barrier|s_barrier)$)");
  std::string text;
  for (auto it = std::sregex_iterator(strings.begin(), strings.end(), piece); it != std::sregex_iterator(); ++it) text += (*it)[1].str();
  for (size_t p; (p = text.find("\\n")) != std::string::npos;) text.replace(p, 2, ";");
  for (size_t p; (p = text.find("\\t")) != std::string::npos;) text.replace(p, 2, " ");
  AsmMeaning out;
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ';');) {
    std::istringstream words(part);
    std::string op;
    if (!(words >> op)) continue;
    if (!std::regex_match(op, ordering) && out.refused.empty()) out.refused = op;
    out.barrier |= op == "s_barrier";
  }
  return out;
}

// What an inline-assembly statement becomes on the host. Instructions that only wait or schedule
// order nothing a fiber can observe and vanish; s_barrier alone is the block barrier; anything
// else is refused with the first instruction named.
std::string host_asm(const std::string& line, const std::string& code) {
  static const std::regex stmt(R"(\basm\s*(?:volatile\s*)?\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)([^;]*)\)\s*;)");
  std::smatch m;
  const auto refuse = [](const std::string& what) {
    return "#error \"inline assembly (" + what + ") cannot run on the hkcheck host backend: mark the kernel \\\"gpu_only\\\" in its manifest\"";
  };
  // One statement on the line, all of it there: anything else is refused whole.
  if (!std::regex_search(line, m, stmt) || code.find("asm", static_cast<size_t>(m.position(0)) + 3) != std::string::npos)
    return refuse("asm");
  const AsmMeaning meaning = asm_meaning(m[1]);
  if (!meaning.refused.empty()) return refuse("`" + meaning.refused + "`");
  std::string out = line;
  out.replace(static_cast<size_t>(m.position(0)), static_cast<size_t>(m.length(0)), meaning.barrier ? "__syncthreads();" : "((void)0);");
  return out;
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
      line = host_asm(line, c);
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

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end of the string or character literal starting at i (the index past its closing quote).
size_t literal_end(const std::string& t, size_t i) {
  const char q = t[i];
  for (++i; i < t.size() && t[i] != q; ++i) i += t[i] == '\\';
  return i < t.size() ? i + 1 : t.size();
}

// The index past the ')' matching the '(' at open, skipping literals; npos when unbalanced.
size_t matching_paren(const std::string& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i] == '"' || t[i] == '\'') i = literal_end(t, i) - 1;
    else if (t[i] == '(') ++depth;
    else if (t[i] == ')' && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

// Keeps the line breaks of what it replaces (with their macro continuations), so that every
// line after it keeps its number.
std::string with_line_breaks_of(std::string replacement, const std::string& replaced) {
  for (size_t i = 0; i < replaced.size(); ++i)
    if (replaced[i] == '\n') replacement += i > 0 && replaced[i - 1] == '\\' ? " \\\n" : "\n";
  return replacement;
}

std::string unemulated_call(const std::string& what) {
  return "hk_host_unemulated{\"" + what + "\", __FILE__, __LINE__}";
}

// An asm statement (not a declaration's asm label): after `;`, `{`, `}` or a label's `:`, or
// with a volatile/goto qualifier.
bool asm_statement_at(const std::string& t, size_t at, size_t after_keyword) {
  size_t q = after_keyword;
  while (q < t.size() && std::isspace(static_cast<unsigned char>(t[q]))) ++q;
  for (const char* w : {"volatile", "__volatile__", "goto"})
    if (t.compare(q, std::strlen(w), w) == 0) return true;
  size_t p = at;
  while (p > 0 && std::isspace(static_cast<unsigned char>(t[p - 1]))) --p;
  return p == 0 || std::strchr(";{}:", t[p - 1]) != nullptr;
}

}  // namespace

std::string rewrite_header_for_host(const std::string& text) {
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      i = literal_end(text, i);
      continue;
    }
    if (!ident_char(c) || (i > 0 && ident_char(text[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && ident_char(text[end])) ++end;
    const std::string word = text.substr(i, end - i);
    std::string replacement;
    size_t replaced_end = end;
    if ((word == "asm" || word == "__asm__" || word == "__asm") && asm_statement_at(text, i, end)) {
      const size_t open = text.find('(', end);
      const size_t close = open == std::string::npos ? std::string::npos : matching_paren(text, open);
      size_t semi = close;
      while (semi != std::string::npos && semi < text.size() && std::isspace(static_cast<unsigned char>(text[semi]))) ++semi;
      if (semi != std::string::npos && semi < text.size() && text[semi] == ';') {
        const std::string inside = text.substr(open + 1, close - open - 2);
        const size_t colon = inside.find(':');  // operands follow the template's last literal
        const AsmMeaning meaning = asm_meaning(inside.substr(0, colon));
        replacement = !meaning.refused.empty() ? unemulated_call("inline assembly `" + meaning.refused + "`") + "();"
                      : meaning.barrier        ? "__syncthreads();"
                                               : "((void)0);";
        replaced_end = semi + 1;
      }
    } else if (word == "static_assert") {
      // static_assert(false, ...) in a branch a template discards is valid C++ since CWG 2518
      // (clang 17, g++ 13), which tile libraries rely on; older host compilers reject it on sight.
      // A valid program is the same without it, and the GPU compile still checks an invalid one.
      size_t q = end;
      while (q < text.size() && std::isspace(static_cast<unsigned char>(text[q]))) ++q;
      if (q < text.size() && text[q] == '(') {
        ++q;
        while (q < text.size() && std::isspace(static_cast<unsigned char>(text[q]))) ++q;
        if (text.compare(q, 5, "false") == 0 && (q + 5 >= text.size() || !ident_char(text[q + 5]))) {
          replacement = text.substr(i, q - i) + "true";
          replaced_end = q + 5;
        }
      }
    } else if (word.rfind(kAmdgcnPrefix, 0) == 0 && word.size() > kAmdgcnPrefix.size() &&
               !emulated_amdgcn().count(word.substr(kAmdgcnPrefix.size()))) {
      replacement = unemulated_call(word);
    }
    if (replacement.empty()) {
      i = end;
      continue;
    }
    out += text.substr(copied, i - copied) + with_line_breaks_of(replacement, text.substr(i, replaced_end - i));
    copied = i = replaced_end;
  }
  return out + text.substr(copied);
}

}  // namespace hk::host
