#include "compile/entry_symbols.h"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace hk {
namespace {

// The position of the '(' that opens the parameter list closing at the end of text, or npos.
size_t parameter_list_start(const std::string& text) {
  if (text.empty() || text.back() != ')') return std::string::npos;
  int depth = 0;
  for (size_t i = text.size(); i-- > 0;) {
    if (text[i] == ')') ++depth;
    else if (text[i] == '(' && --depth == 0) return i;
  }
  return std::string::npos;
}

// The last space outside template arguments and parentheses: what precedes it is a template
// function's return type ("void reduce0<int>").
size_t return_type_end(const std::string& text) {
  int depth = 0;
  size_t last = std::string::npos;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(') ++depth;
    else if (c == '>' || c == ')') --depth;
    else if (c == ' ' && depth == 0) last = i;
  }
  return last;
}

// The demangler writes a function as a template argument with its type, "&(float ns::silu<float>(float const&))";
// a name expression takes "&ns::silu<float>".
std::string function_arguments_as_names(std::string text) {
  for (size_t at = text.find("&("); at != std::string::npos; at = text.find("&(", at + 1)) {
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t i = at + 1; i < text.size(); ++i) {
      if (text[i] == '(') ++depth;
      else if (text[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) break;
    std::string inner = text.substr(at + 2, close - at - 2);
    if (const size_t params = parameter_list_start(inner); params != std::string::npos) inner.resize(params);
    if (const size_t sp = return_type_end(inner); sp != std::string::npos) inner = inner.substr(sp + 1);
    text.replace(at + 1, close - at, inner);
  }
  return text;
}

}  // namespace

bool is_mangled_symbol(const std::string& entry) {
  if (entry.size() < 3 || entry.rfind("_Z", 0) != 0) return false;
  for (const char c : entry)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$') return false;
  return true;
}

std::string name_expression_of_symbol(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return "";
  std::string name = text.get();
  const size_t params = parameter_list_start(name);
  if (params == std::string::npos) return "";
  name.resize(params);
  if (const size_t sp = return_type_end(name); sp != std::string::npos) name = name.substr(sp + 1);
  return function_arguments_as_names(name);
}

}  // namespace hk
