// -k expressions: words joined by `and`, `or`, `not` and parentheses, each word matched against
// a case id as id_matches does (a glob with * ? [, else a substring), as pytest's -k does. An
// expression without an operator or a parenthesis is one pattern, spaces included, so
// `-k "n=64 seed=3"` keeps meaning what it always meant (README.md, "Choosing cases").
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace hk {

class KeywordExpr {
 public:
  // Throws std::invalid_argument naming the problem and where ("expected a word after 'and'").
  explicit KeywordExpr(const std::string& text);
  ~KeywordExpr();
  KeywordExpr(KeywordExpr&&) noexcept;
  KeywordExpr& operator=(KeywordExpr&&) noexcept;
  bool matches(const std::string& id) const;

  struct Node;

 private:
  std::unique_ptr<Node> root_;
};

}  // namespace hk
