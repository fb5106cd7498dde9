#include "app/mutate/clang_tokens.h"

#include <fmt/format.h>

#include "platform/libclang_api.h"

namespace hk {
namespace {

TokenKind kind_of(CXTokenKind k) {
  switch (k) {
    case CXToken_Keyword: return TokenKind::keyword;
    case CXToken_Identifier: return TokenKind::identifier;
    case CXToken_Literal: return TokenKind::literal;
    case CXToken_Comment: return TokenKind::comment;
    default: return TokenKind::punctuation;
  }
}

// Marks the tokens of preprocessor lines: a `#` first on its line, to the end of the line and
// over its backslash continuations.
void mark_directives(std::vector<SourceToken>& tokens, const std::string& text) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool first_on_line = i == 0 || tokens[i - 1].line != tokens[i].line;
    if (tokens[i].text != "#" || !first_on_line) continue;
    size_t line_end = text.find('\n', tokens[i].begin);
    while (line_end != std::string::npos && line_end > 0 && text[line_end - 1] == '\\') line_end = text.find('\n', line_end + 1);
    for (size_t j = i; j < tokens.size() && (line_end == std::string::npos || tokens[j].begin < line_end); ++j) tokens[j].directive = true;
  }
}

}  // namespace

std::vector<SourceToken> tokenize_source(const std::string& path, const std::string& text) {
  try {
    load_libclang();
  } catch (const std::exception& e) {
    throw TokenizeError(fmt::format("libclang is needed to read kernel sources ({}); on Debian: apt-get install libclang-14-dev", e.what()));
  }
  const std::string name = path.size() > 3 && path.substr(path.size() - 3) == ".cu" ? path : path + ".cu";
  CXUnsavedFile unsaved{name.c_str(), text.c_str(), static_cast<unsigned long>(text.size())};
  // No header is read: the lexer alone decides the tokens, and a missing include ends the parse early.
  const char* args[] = {"-x", "c++", "-std=c++17", "-nostdinc", "-fsyntax-only"};
  CXIndex index = clang_createIndex(0, 0);
  if (!index) throw TokenizeError(path + ": libclang could not create an index");
  CXTranslationUnit tu = nullptr;
  const CXErrorCode rc = clang_parseTranslationUnit2(index, name.c_str(), args, 5, &unsaved, 1, CXTranslationUnit_Incomplete, &tu);
  if (rc != CXError_Success || !tu) {
    clang_disposeIndex(index);
    throw TokenizeError(fmt::format("{}: libclang could not read it (error {})", path, static_cast<int>(rc)));
  }
  CXFile file = clang_getFile(tu, name.c_str());
  CXToken* raw = nullptr;
  unsigned n = 0;
  if (file) clang_tokenize(tu, clang_getRange(clang_getLocationForOffset(tu, file, 0), clang_getLocationForOffset(tu, file, text.size())), &raw, &n);
  std::vector<SourceToken> tokens;
  for (unsigned i = 0; i < n; ++i) {
    SourceToken t;
    t.kind = kind_of(clang_getTokenKind(raw[i]));
    if (t.kind == TokenKind::comment) continue;
    const CXSourceRange extent = clang_getTokenExtent(tu, raw[i]);
    unsigned line = 0, column = 0, begin = 0, end = 0;
    clang_getSpellingLocation(clang_getRangeStart(extent), nullptr, &line, &column, &begin);
    clang_getSpellingLocation(clang_getRangeEnd(extent), nullptr, nullptr, nullptr, &end);
    CXString s = clang_getTokenSpelling(tu, raw[i]);
    t.text = clang_getCString(s) ? clang_getCString(s) : "";
    clang_disposeString(s);
    t.begin = begin, t.end = end, t.line = line, t.column = column;
    tokens.push_back(std::move(t));
  }
  if (raw) clang_disposeTokens(tu, raw, n);
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  if (!file || (tokens.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos))
    throw TokenizeError(path + ": libclang returned no tokens for it");
  mark_directives(tokens, text);
  return tokens;
}

}  // namespace hk
