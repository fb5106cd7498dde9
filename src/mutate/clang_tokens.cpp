#include "mutate/clang_tokens.h"

#include <fmt/format.h>
#include <memory>

#include "backend.h"
#include "dynlib.h"

#include <clang-c/Index.h>

namespace hk {
namespace {

// The libclang functions used, looked up once.
struct LibClang {
  std::unique_ptr<DynLib> lib;
  decltype(&clang_createIndex) create_index;
  decltype(&clang_disposeIndex) dispose_index;
  decltype(&clang_parseTranslationUnit2) parse;
  decltype(&clang_disposeTranslationUnit) dispose_tu;
  decltype(&clang_getFile) get_file;
  decltype(&clang_getLocationForOffset) location_for_offset;
  decltype(&clang_getRange) get_range;
  decltype(&clang_tokenize) tokenize;
  decltype(&clang_disposeTokens) dispose_tokens;
  decltype(&clang_getTokenKind) token_kind;
  decltype(&clang_getTokenSpelling) token_spelling;
  decltype(&clang_getTokenExtent) token_extent;
  decltype(&clang_getRangeStart) range_start;
  decltype(&clang_getRangeEnd) range_end;
  decltype(&clang_getSpellingLocation) spelling_location;
  decltype(&clang_getCString) c_string;
  decltype(&clang_disposeString) dispose_string;

  LibClang() {
    lib = DynLib::open({"libclang-14.so.1", "libclang.so.1", "libclang.so", HKCHECK_LIBCLANG_PATH});
    create_index = lib->get<decltype(create_index)>("clang_createIndex");
    dispose_index = lib->get<decltype(dispose_index)>("clang_disposeIndex");
    parse = lib->get<decltype(parse)>("clang_parseTranslationUnit2");
    dispose_tu = lib->get<decltype(dispose_tu)>("clang_disposeTranslationUnit");
    get_file = lib->get<decltype(get_file)>("clang_getFile");
    location_for_offset = lib->get<decltype(location_for_offset)>("clang_getLocationForOffset");
    get_range = lib->get<decltype(get_range)>("clang_getRange");
    tokenize = lib->get<decltype(tokenize)>("clang_tokenize");
    dispose_tokens = lib->get<decltype(dispose_tokens)>("clang_disposeTokens");
    token_kind = lib->get<decltype(token_kind)>("clang_getTokenKind");
    token_spelling = lib->get<decltype(token_spelling)>("clang_getTokenSpelling");
    token_extent = lib->get<decltype(token_extent)>("clang_getTokenExtent");
    range_start = lib->get<decltype(range_start)>("clang_getRangeStart");
    range_end = lib->get<decltype(range_end)>("clang_getRangeEnd");
    spelling_location = lib->get<decltype(spelling_location)>("clang_getSpellingLocation");
    c_string = lib->get<decltype(c_string)>("clang_getCString");
    dispose_string = lib->get<decltype(dispose_string)>("clang_disposeString");
  }
};

const LibClang& libclang() {
  static const LibClang lib;  // throws BackendUnavailable when missing; the next call tries again
  return lib;
}

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
  const LibClang* lc = nullptr;
  try {
    lc = &libclang();
  } catch (const BackendUnavailable& e) {
    throw TokenizeError(fmt::format("libclang is needed to read kernel sources ({}); on Debian: apt-get install libclang-14-dev", e.what()));
  }
  const std::string name = path.size() > 3 && path.substr(path.size() - 3) == ".cu" ? path : path + ".cu";
  CXUnsavedFile unsaved{name.c_str(), text.c_str(), static_cast<unsigned long>(text.size())};
  // No header is read: the lexer alone decides the tokens, and a missing include ends the parse early.
  const char* args[] = {"-x", "c++", "-std=c++17", "-nostdinc", "-fsyntax-only"};
  CXIndex index = lc->create_index(0, 0);
  if (!index) throw TokenizeError(path + ": libclang could not create an index");
  CXTranslationUnit tu = nullptr;
  const CXErrorCode rc = lc->parse(index, name.c_str(), args, 5, &unsaved, 1, CXTranslationUnit_Incomplete, &tu);
  if (rc != CXError_Success || !tu) {
    lc->dispose_index(index);
    throw TokenizeError(fmt::format("{}: libclang could not read it (error {})", path, static_cast<int>(rc)));
  }
  CXFile file = lc->get_file(tu, name.c_str());
  CXToken* raw = nullptr;
  unsigned n = 0;
  if (file) lc->tokenize(tu, lc->get_range(lc->location_for_offset(tu, file, 0), lc->location_for_offset(tu, file, text.size())), &raw, &n);
  std::vector<SourceToken> tokens;
  for (unsigned i = 0; i < n; ++i) {
    SourceToken t;
    t.kind = kind_of(lc->token_kind(raw[i]));
    if (t.kind == TokenKind::comment) continue;
    const CXSourceRange extent = lc->token_extent(tu, raw[i]);
    unsigned line = 0, column = 0, begin = 0, end = 0;
    lc->spelling_location(lc->range_start(extent), nullptr, &line, &column, &begin);
    lc->spelling_location(lc->range_end(extent), nullptr, nullptr, nullptr, &end);
    CXString s = lc->token_spelling(tu, raw[i]);
    t.text = lc->c_string(s) ? lc->c_string(s) : "";
    lc->dispose_string(s);
    t.begin = begin, t.end = end, t.line = line, t.column = column;
    tokens.push_back(std::move(t));
  }
  if (raw) lc->dispose_tokens(tu, raw, n);
  lc->dispose_tu(tu);
  lc->dispose_index(index);
  if (!file || (tokens.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos))
    throw TokenizeError(path + ": libclang returned no tokens for it");
  mark_directives(tokens, text);
  return tokens;
}

}  // namespace hk
