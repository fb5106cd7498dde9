#include "select/keyword_expr.h"

#include <fmt/format.h>
#include <vector>

#include "select/case_id.h"

namespace hk {

struct KeywordExpr::Node {
  enum class Kind { word, not_, and_, or_ } kind = Kind::word;
  std::string word;
  std::unique_ptr<Node> a, b;
};

namespace {

using Node = KeywordExpr::Node;

bool is_keyword_operator(const std::string& t) { return t == "and" || t == "or" || t == "not" || t == "(" || t == ")"; }

std::vector<std::string> keyword_tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) out.push_back(word), word.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      flush();
    } else if (c == '(' || c == ')') {
      flush();
      out.emplace_back(1, c);
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

// Bounds on an expression: the parser, the evaluation and the tree's destruction recurse once per
// level, and a -k of 60,000 '(' overflowed the stack. No real selection comes near either.
constexpr size_t kMaxKeywordDepth = 200;
constexpr size_t kMaxKeywordTokens = 10000;

// expr := term ('or' term)* ; term := factor ('and' factor)* ; factor := 'not' factor | '(' expr ')' | word
class KeywordParser {
 public:
  KeywordParser(std::vector<std::string> tokens, const std::string& text) : t_(std::move(tokens)), text_(text) {}

  std::unique_ptr<Node> parse() {
    if (t_.size() > kMaxKeywordTokens) fail(fmt::format("{} words and operators: at most {} are taken", t_.size(), kMaxKeywordTokens));
    auto n = expr();
    if (i_ < t_.size()) fail(fmt::format("unexpected '{}'", t_[i_]));
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw std::invalid_argument(fmt::format("-k '{}': {}", text_, what)); }
  bool next_is(const char* s) const { return i_ < t_.size() && t_[i_] == s; }

  std::unique_ptr<Node> binary(Node::Kind kind, std::unique_ptr<Node> a, std::unique_ptr<Node> b) {
    auto n = std::make_unique<Node>();
    n->kind = kind, n->a = std::move(a), n->b = std::move(b);
    return n;
  }
  std::unique_ptr<Node> expr() {
    auto n = term();
    while (next_is("or")) ++i_, n = binary(Node::Kind::or_, std::move(n), term());
    return n;
  }
  std::unique_ptr<Node> term() {
    auto n = factor();
    while (next_is("and")) ++i_, n = binary(Node::Kind::and_, std::move(n), factor());
    return n;
  }
  std::unique_ptr<Node> factor() {
    if (i_ >= t_.size()) fail(i_ == 0 ? "empty expression" : fmt::format("expected a word after '{}'", t_[i_ - 1]));
    const std::string& t = t_[i_++];
    if (t == "not" || t == "(") {
      if (++depth_ > kMaxKeywordDepth) fail(fmt::format("nested more than {} deep ('not' and '(')", kMaxKeywordDepth));
      std::unique_ptr<Node> n;
      if (t == "not") {
        n = binary(Node::Kind::not_, factor(), nullptr);
      } else {
        n = expr();
        if (!next_is(")")) fail("a '(' is not closed");
        ++i_;
      }
      --depth_;
      return n;
    }
    if (is_keyword_operator(t)) fail(fmt::format("expected a word, found '{}'", t));
    if (i_ < t_.size() && !is_keyword_operator(t_[i_])) fail(fmt::format("'{}' and '{}' need an operator between them (and, or)", t, t_[i_]));
    auto n = std::make_unique<Node>();
    n->word = t;
    return n;
  }

  std::vector<std::string> t_;
  const std::string& text_;
  size_t i_ = 0;
  size_t depth_ = 0;
};

bool eval_keyword(const Node& n, const std::string& id) {
  switch (n.kind) {
    case Node::Kind::word: return id_matches(n.word, id);
    case Node::Kind::not_: return !eval_keyword(*n.a, id);
    case Node::Kind::and_: return eval_keyword(*n.a, id) && eval_keyword(*n.b, id);
    case Node::Kind::or_: return eval_keyword(*n.a, id) || eval_keyword(*n.b, id);
  }
  return false;
}

}  // namespace

KeywordExpr::KeywordExpr(const std::string& text) {
  std::vector<std::string> tokens = keyword_tokens(text);
  bool has_operator = false;
  for (const std::string& t : tokens) has_operator |= is_keyword_operator(t);
  if (!has_operator) {  // one pattern, as before expressions: spaces are part of it
    if (text.empty()) throw std::invalid_argument("-k '': empty expression");
    root_ = std::make_unique<Node>();
    root_->word = text;
    return;
  }
  root_ = KeywordParser(std::move(tokens), text).parse();
}

KeywordExpr::~KeywordExpr() = default;
KeywordExpr::KeywordExpr(KeywordExpr&&) noexcept = default;
KeywordExpr& KeywordExpr::operator=(KeywordExpr&&) noexcept = default;

bool KeywordExpr::matches(const std::string& id) const { return eval_keyword(*root_, id); }

}  // namespace hk
