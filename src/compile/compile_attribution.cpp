#include "compile/compile_attribution.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

namespace hk {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The source with comments, string and character literals and preprocessor lines blanked out,
// newlines kept, so that positions and line numbers stay those of the original.
std::string code_only(const std::string& s) {
  std::string out = s;
  size_t i = 0;
  bool line_start = true;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < s.size()) {
    const char c = s[i];
    if (line_start && c == '#') {  // a directive, with its continuation lines
      size_t e = i;
      while (e < s.size() && !(s[e] == '\n' && s[e - 1] != '\\')) ++e;
      blank(i, e);
      i = e;
    } else if (s.compare(i, 2, "//") == 0) {
      const size_t e = std::min(s.find('\n', i), s.size());
      blank(i, e);
      i = e;
    } else if (s.compare(i, 2, "/*") == 0) {
      const size_t e = std::min(s.find("*/", i + 2), s.size() - 2) + 2;
      blank(i, e);
      i = e;
    } else if (c == '"' || c == '\'') {
      size_t e = i + 1;
      while (e < s.size() && s[e] != c && s[e] != '\n') e += s[e] == '\\' ? 2 : 1;
      blank(i, e + 1);
      i = e + 1;
    } else {
      if (c == '\n') line_start = true;
      else if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
      ++i;
    }
  }
  return out;
}

// Before `{` at pos: the function name when it opens a function body, else "".
std::string function_before(const std::string& code, size_t pos, size_t* name_pos) {
  static const std::set<std::string> kSpecifiers = {"const", "noexcept", "override", "final", "mutable", "volatile", "__restrict__"};
  static const std::set<std::string> kNotFunctions = {"if", "for", "while", "switch", "catch", "sizeof", "alignof", "decltype",
                                                      "__launch_bounds__", "__attribute__", "alignas", "__align__", "return", "noexcept"};
  size_t p = pos;
  for (;;) {
    while (p > 0 && std::isspace(static_cast<unsigned char>(code[p - 1]))) --p;
    size_t w = p;
    while (w > 0 && word_char(code[w - 1])) --w;
    if (w < p && kSpecifiers.count(code.substr(w, p - w))) p = w;
    else break;
  }
  if (p == 0 || code[p - 1] != ')') return "";
  int depth = 0;
  size_t q = p;
  while (q > 0) {
    --q;
    if (code[q] == ')') ++depth;
    else if (code[q] == '(' && --depth == 0) break;
  }
  if (depth != 0) return "";
  while (q > 0 && std::isspace(static_cast<unsigned char>(code[q - 1]))) --q;
  size_t w = q;
  while (w > 0 && word_char(code[w - 1])) --w;
  const std::string name = code.substr(w, q - w);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || kNotFunctions.count(name)) return "";
  *name_pos = w;
  return name;
}

std::string demangled_function(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  std::string text = status == 0 && d ? std::string(d.get()) : symbol;
  // "void ns::f<int>(float*)" -> "ns::f<int>"; strip the parameter list, then the return type.
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') ++depth;
    else if (text[i] == '>') --depth;
    else if (text[i] == '(' && depth == 0) {
      text.resize(i);
      break;
    }
  }
  depth = 0;
  size_t name_start = 0;  // after the return type's last space outside template brackets
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') ++depth;
    else if (text[i] == '>') --depth;
    else if (text[i] == ' ' && depth == 0) name_start = i + 1;
  }
  return entry_function(text.substr(name_start));
}

bool quoted_in(const std::string& text, const std::string& name) {
  const size_t at = text.find(name);
  return at != std::string::npos && at > 0 && text[at - 1] == '\'' && at + name.size() < text.size() && text[at + name.size()] == '\'';
}

std::string without_spaces(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), s.end());
  return s;
}

}  // namespace

std::vector<SourceFunction> source_functions(const std::string& source) {
  const std::string code = code_only(source);
  std::vector<size_t> line_of(code.size() + 1, 1);
  for (size_t i = 0, line = 1; i < code.size(); ++i) {
    line_of[i] = static_cast<int>(line);
    if (code[i] == '\n') ++line;
  }
  std::vector<SourceFunction> out;
  std::vector<int> open;  // per open brace: index into out for a function body, -1 otherwise
  int in_function = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '{') {
      size_t name_pos = 0;
      const std::string name = in_function ? "" : function_before(code, i, &name_pos);
      if (!name.empty()) {
        out.push_back({name, static_cast<int>(line_of[name_pos]), 0});
        open.push_back(static_cast<int>(out.size()) - 1);
        ++in_function;
      } else {
        open.push_back(-1);
      }
    } else if (code[i] == '}' && !open.empty()) {
      if (open.back() >= 0) {
        out[static_cast<size_t>(open.back())].last_line = static_cast<int>(line_of[i]);
        --in_function;
      }
      open.pop_back();
    }
  }
  for (SourceFunction& f : out)
    if (f.last_line == 0) f.last_line = std::count(source.begin(), source.end(), '\n') + 1;  // unclosed: to the end
  return out;
}

std::string entry_function(const std::string& entry) {
  std::string s;
  int depth = 0;
  for (char c : entry) {  // drop template arguments
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (depth == 0) s += c;
  }
  const size_t colon = s.rfind("::");
  if (colon != std::string::npos) s = s.substr(colon + 2);
  return without_spaces(s);
}

std::vector<CompileErrorSite> compile_error_sites(const std::string& log, const std::string& source, const std::string& source_name,
                                                  const std::vector<std::string>& entries) {
  static const std::regex nvrtc_re(R"(^(.*?)\((\d+)\): (?:catastrophic )?error: (.*)$)");
  static const std::regex gcc_re(R"(^(.*?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$)");
  static const std::regex name_map_re(R"(Input name expression was: \"(.*)\")");
  static const std::regex entry_file_re(R"(^<entry '(.*)'>$)");
  static const std::regex symbol_re(R"((?:Entry function|in function) '([^']+)')");
  const std::vector<SourceFunction> functions = source_functions(source);
  const std::string own_name = std::filesystem::path(source_name).filename().string();
  const int source_lines = static_cast<int>(std::count(source.begin(), source.end(), '\n')) + 1;
  static const std::regex required_re(R"(^(.*?):(\d+):\d+:\s+required from here)");
  static const std::regex during_re(R"(detected during.* at line (\d+) of (.*)$)");
  auto function_at = [&](int line) {
    std::string name;
    for (const SourceFunction& f : functions)
      if (line >= f.first_line && line <= f.last_line) name = f.name;
    return name;
  };
  std::vector<CompileErrorSite> out;
  std::istringstream in(log);
  std::smatch m;
  int required_line = 0;  // gcc: the user's line a template in a header was instantiated from
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 4096) continue;  // not a diagnostic line
    // An error inside a header's template belongs to the user's function that instantiated it:
    // gcc says where before the error, NVRTC after it.
    if (std::regex_search(line, m, required_re) && std::filesystem::path(m[1].str()).filename().string() == own_name) {
      required_line = std::atoi(m[2].str().c_str());
      continue;
    }
    if (std::regex_search(line, m, during_re) && !out.empty() && out.back().function.empty() &&
        std::filesystem::path(m[2].str()).filename().string() == own_name) {
      out.back().function = function_at(std::atoi(m[1].str().c_str()));
      continue;
    }
    CompileErrorSite site;
    if (std::regex_search(line, m, symbol_re) && (line.find("error") != std::string::npos)) {
      site.text = line;
      site.function = demangled_function(m[1]);
    } else if (std::regex_match(line, m, nvrtc_re) || std::regex_match(line, m, gcc_re)) {
      site.file = m[1];
      site.line = std::atoi(m[2].str().c_str());
      site.text = m[3];
      std::smatch e;
      const bool own_file = std::filesystem::path(site.file).filename().string() == own_name;
      if (std::regex_search(site.text, e, name_map_re) || std::regex_match(site.file, e, entry_file_re)) {
        const std::string wanted = without_spaces(e[1]);
        for (const std::string& entry : entries)
          if (without_spaces(entry) == wanted) site.function = entry_function(entry);
        site.names_entry = true;
      } else if (own_file && site.line > source_lines) {
        // hipRTC appends its name expressions to the source: an error past the end is an
        // entry's, and names it in quotes.
        for (const std::string& entry : entries)
          if (quoted_in(site.text, entry_function(entry))) site.function = entry_function(entry);
        site.names_entry = true;
      } else if (own_file) {
        site.function = function_at(site.line);
      } else if (required_line > 0) {
        site.function = function_at(required_line);
      }
      required_line = 0;
      // The name map's follow-up errors repeat the same failure: keep one per entry.
      if (site.file.rfind("__nv_name_map", 0) == 0 && site.function.empty()) continue;
    } else {
      continue;
    }
    out.push_back(std::move(site));
  }
  return out;
}

std::string compile_error_summary(const std::string& log, const std::string& source, const std::string& source_name,
                                  const std::string& entry, const std::vector<std::string>& entries) {
  const std::vector<CompileErrorSite> sites = compile_error_sites(log, source, source_name, entries);
  auto where = [](const CompileErrorSite& s) { return s.file.empty() ? s.text : fmt::format("{}({}): {}", s.file, s.line, s.text); };
  const std::string mine = entry_function(entry);
  for (const CompileErrorSite& s : sites)
    if (s.function == mine) return fmt::format("{} does not compile: {}", entry, where(s));
  std::vector<std::string> culprits;
  const CompileErrorSite* first = nullptr;
  for (const bool entry_errors : {false, true})  // errors in functions first, then misnamed entries
    for (const CompileErrorSite& s : sites) {
      if (s.function.empty() || s.names_entry != entry_errors) continue;
      const std::string who = s.names_entry ? "the entry " + s.function + " (names no kernel of the file)" : s.function;
      if (std::find(culprits.begin(), culprits.end(), who) != culprits.end()) continue;
      culprits.push_back(who);
      if (!first) first = &s;
    }
  if (first) {
    std::string names;
    for (const std::string& c : culprits) names += (names.empty() ? "" : ", ") + c;
    return fmt::format("{} has no error of its own: the file does not compile because of {} ({})", entry, names, where(*first));
  }
  if (!sites.empty()) return where(sites.front());
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) return line;
  return "the compiler failed without a message";
}

CompileOutput compile_entries(const std::function<CompileOutput(const CompileRequest&)>& compile, const CompileRequest& request) {
  CompileOutput out = compile(request);
  if (out.ok || request.entries.size() < 2) return out;
  const std::vector<CompileErrorSite> sites = compile_error_sites(out.log, request.source, request.source_name, request.entries);
  std::map<std::string, std::string> missing;  // entry -> the compiler's words
  for (const CompileErrorSite& s : sites) {
    if (!s.names_entry || s.function.empty()) return out;  // a real error of the file
    for (const std::string& e : request.entries)
      if (entry_function(e) == s.function && !missing.count(e)) missing[e] = s.text;
  }
  if (missing.empty() || missing.size() == request.entries.size()) return out;
  CompileRequest rest = request;
  rest.entries.clear();
  for (const std::string& e : request.entries)
    if (!missing.count(e)) rest.entries.push_back(e);
  CompileOutput again = compile(rest);
  if (!again.ok) return out;
  for (const auto& [e, why] : missing)
    again.entry_errors[e] = fmt::format("'{}' names no kernel of {}: {}", e, request.source_name, why);
  return again;
}

}  // namespace hk
