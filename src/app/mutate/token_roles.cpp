#include "app/mutate/token_roles.h"

#include <set>
#include <string>

namespace hk {
namespace {

constexpr size_t kNoToken = static_cast<size_t>(-1);  // no partner bracket

// Macros and specifiers that introduce device code (the prelude's HK_KERNEL, HK_DEVICE, HK_HD).
bool device_marker(const SourceToken& t) {
  static const std::set<std::string> markers{"__global__", "__device__", "HK_KERNEL", "HK_DEVICE", "HK_HD"};
  return t.kind == TokenKind::identifier && markers.count(t.text) > 0;
}

std::vector<size_t> match_brackets(const std::vector<SourceToken>& toks) {
  std::vector<size_t> match(toks.size(), kNoToken), open;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& s = toks[i].text;
    if (toks[i].kind != TokenKind::punctuation || toks[i].directive) continue;
    if (s == "(" || s == "[" || s == "{") open.push_back(i);
    if ((s == ")" || s == "]" || s == "}") && !open.empty()) {
      match[i] = open.back(), match[open.back()] = i;
      open.pop_back();
    }
  }
  return match;
}

bool kernel_marker(const SourceToken& t) { return t.text == "__global__" || t.text == "HK_KERNEL"; }

// A device function's body: from the marker, the first `{` at bracket depth 0 before any `;` or
// `=` (a __device__ variable has those instead). Its name is the identifier before the first
// `(` (or before the `<` of an explicit specialization's arguments).
void find_functions(const std::vector<SourceToken>& toks, const std::vector<size_t>& match, TokenRoles& r) {
  for (size_t i = 0; i < toks.size(); ++i) {
    if (!device_marker(toks[i]) || r.in_body[i]) continue;
    DeviceFunction f;
    f.kernel = kernel_marker(toks[i]);
    for (size_t j = i + 1; j < toks.size(); ++j) {
      const std::string& s = toks[j].text;
      f.kernel = f.kernel || kernel_marker(toks[j]);
      if (toks[j].kind != TokenKind::punctuation) continue;
      if (s == "(" && f.name.empty()) {
        size_t n = j - 1;
        if (n > i && toks[n].text == ">") while (n > i && toks[n].text != "<") --n;
        if (n > i && toks[n].text == "<") --n;
        if (n > i && toks[n].kind == TokenKind::identifier) f.name = toks[n].text;
      }
      if ((s == "(" || s == "[") && match[j] != kNoToken) {
        j = match[j];
        continue;
      }
      if (s == ";" || s == "=") break;
      if (s == "{" && match[j] != kNoToken) {
        f.open = j, f.close = match[j];
        for (size_t k = j + 1; k < match[j]; ++k) r.in_body[k] = true;
        r.functions.push_back(f);
        i = match[j];
        break;
      }
    }
  }
}

// Template brackets: a `<` after a name (or `template`) whose partner `>` comes before anything
// an expression would have there (`;`, `=`, `&&`, `?`, an unmatched `)` ...).
void mark_templates(const std::vector<SourceToken>& toks, std::vector<bool>& angle) {
  static const std::set<std::string> inside{"::", ",", "*", "&", "<", ">", ">>", "(", ")", "+", "-"};
  for (size_t i = 1; i < toks.size(); ++i) {
    if (toks[i].text != "<" || toks[i].kind != TokenKind::punctuation) continue;
    const SourceToken& before = toks[i - 1];
    if (before.kind != TokenKind::identifier && before.text != "template" && before.kind != TokenKind::keyword) continue;
    int depth = 1, parens = 0;
    size_t j = i + 1;
    for (; j < toks.size() && depth > 0; ++j) {
      const SourceToken& t = toks[j];
      if (t.kind == TokenKind::punctuation && !inside.count(t.text)) break;
      if (t.text == "(") ++parens;
      if (t.text == ")" && --parens < 0) break;
      if (t.text == "<") ++depth;
      if (t.text == ">") --depth;
      if (t.text == ">>") depth -= 2;
    }
    if (depth > 0) continue;
    const std::string after = j < toks.size() ? toks[j].text : "";
    if (after != "(" && after != "::" && after != "{" && after != ")" && after != "," && after != ">" && j < toks.size() &&
        toks[j].kind != TokenKind::identifier)
      continue;
    angle[i] = true;
    for (size_t k = i + 1; k < j; ++k)
      if (toks[k].text == "<" || toks[k].text == ">" || toks[k].text == ">>") angle[k] = true;
  }
}

bool type_keyword(const SourceToken& t) {
  static const std::set<std::string> types{"float", "double", "int", "unsigned", "char", "short", "long", "void", "bool", "auto", "const", "signed", "volatile"};
  return t.kind == TokenKind::keyword && types.count(t.text) > 0;
}

// `T* p = ...`, `const T& r = ...`: a name (or a type keyword) starting a declaration, then the
// `*`/`&`, then the declared name and `=`, `;`, `,`, `[` or `)`.
void mark_declarators(const std::vector<SourceToken>& toks, std::vector<bool>& decl) {
  static const std::set<std::string> starts{"{", ";", "}", "const", "(", ":"};
  for (size_t i = 1; i + 1 < toks.size(); ++i) {
    if (toks[i].text != "*" && toks[i].text != "&") continue;
    const SourceToken& prev = toks[i - 1];
    if (type_keyword(prev) || prev.text == "*" || prev.text == "&" || prev.text == ">" ) {
      decl[i] = true;
      continue;
    }
    if (prev.kind != TokenKind::identifier || i < 2) continue;
    const std::string& before = toks[i - 2].text;
    const SourceToken& next = toks[i + 1];
    const std::string after = i + 2 < toks.size() ? toks[i + 2].text : "";
    if (next.text == "__restrict__" || next.text == "const") decl[i] = true;
    else if (next.kind == TokenKind::identifier && starts.count(before) &&
             (after == "=" || (before != "(" && (after == ";" || after == "," || after == "[" || after == ")"))))
      decl[i] = true;
  }
}

// A for statement's condition: between the first and second `;` inside its parentheses.
void mark_loop_conditions(const std::vector<SourceToken>& toks, const std::vector<size_t>& match, std::vector<bool>& cond) {
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i].text != "for" || toks[i + 1].text != "(" || match[i + 1] == kNoToken) continue;
    int semis = 0;
    for (size_t j = i + 2; j < match[i + 1]; ++j) {
      if ((toks[j].text == "(" || toks[j].text == "[" || toks[j].text == "{") && match[j] != kNoToken) {
        if (semis == 1)
          for (size_t k = j; k <= match[j]; ++k) cond[k] = true;
        j = match[j];
        continue;
      }
      if (toks[j].text == ";") ++semis;
      else if (semis == 1) cond[j] = true;
    }
  }
}

void mark_shared(const std::vector<SourceToken>& toks, std::vector<bool>& shared) {
  for (size_t i = 0; i < toks.size(); ++i)
    if (toks[i].text == "__shared__")
      for (size_t j = i; j < toks.size() && toks[j].text != ";"; ++j) shared[j] = true;
}

}  // namespace

bool ends_value(const SourceToken& t) {
  if (t.kind == TokenKind::identifier || t.kind == TokenKind::literal) return true;
  if (t.kind == TokenKind::keyword) return t.text == "this" || t.text == "true" || t.text == "false";
  return t.text == ")" || t.text == "]";
}

TokenRoles token_roles(const std::vector<SourceToken>& toks) {
  TokenRoles r;
  const size_t n = toks.size();
  r.in_body.assign(n, false), r.loop_condition.assign(n, false), r.template_angle.assign(n, false);
  r.declarator.assign(n, false), r.shared_decl.assign(n, false);
  r.match = match_brackets(toks);
  find_functions(toks, r.match, r);
  mark_templates(toks, r.template_angle);
  mark_declarators(toks, r.declarator);
  mark_loop_conditions(toks, r.match, r.loop_condition);
  mark_shared(toks, r.shared_decl);
  return r;
}

std::vector<bool> reachable_from(const std::vector<SourceToken>& toks, const TokenRoles& r, const std::string& entry) {
  std::string name = entry.substr(0, entry.find('<'));
  if (name.rfind("::") != std::string::npos) name = name.substr(name.rfind("::") + 2);
  std::vector<bool> in(r.functions.size(), false);
  std::vector<size_t> todo;
  for (size_t f = 0; f < r.functions.size(); ++f)
    if (r.functions[f].kernel && r.functions[f].name == name) in[f] = true, todo.push_back(f);
  if (todo.empty()) return r.in_body;
  while (!todo.empty()) {
    const DeviceFunction& f = r.functions[todo.back()];
    todo.pop_back();
    for (size_t i = f.open + 1; i < f.close; ++i) {
      if (toks[i].kind != TokenKind::identifier) continue;
      for (size_t g = 0; g < r.functions.size(); ++g)
        if (!in[g] && !r.functions[g].kernel && r.functions[g].name == toks[i].text) in[g] = true, todo.push_back(g);
    }
  }
  std::vector<bool> out(toks.size(), false);
  for (size_t f = 0; f < r.functions.size(); ++f)
    if (in[f])
      for (size_t i = r.functions[f].open + 1; i < r.functions[f].close; ++i) out[i] = true;
  return out;
}

}  // namespace hk
