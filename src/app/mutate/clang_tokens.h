// A kernel source as clang's lexer sees it: every token with its exact kind and byte extent.
// libclang is opened at run time (as the vendor libraries are), so hkcheck starts where it is
// absent and only `hkcheck mutate` needs it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace hk {

enum class TokenKind { punctuation, keyword, identifier, literal, comment };

struct SourceToken {
  TokenKind kind = TokenKind::punctuation;
  std::string text;
  size_t begin = 0, end = 0;  // byte offsets into the source, end exclusive
  unsigned line = 0, column = 0;  // 1-based, of begin
  bool directive = false;  // part of a preprocessor line (#include, #pragma, #define ...)
};

struct TokenizeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Tokenizes text as the C++ file `path` (the name is used for messages only; nothing is read
// from disk, no header is opened). Comments are left out. Throws TokenizeError when libclang
// cannot be loaded or refuses the text.
std::vector<SourceToken> tokenize_source(const std::string& path, const std::string& text);

}  // namespace hk
