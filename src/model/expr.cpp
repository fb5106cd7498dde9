#include "model/expr.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <vector>

namespace hk {

std::string param_to_string(const ParamValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  const double d = std::get<double>(v);
  if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<long long>(d));
  return fmt::format("{}", d);
}

namespace {

// Recursive-descent parser: expr := term (('+'|'-') term)*; term := unary (('*'|'/'|'%') unary)*;
// unary := '-' unary | primary; primary := number | name | name '(' args ')' | '(' expr ')'.
class Parser {
 public:
  Parser(const std::string& text, const Params& params) : s_(text), params_(params) {}

  double parse() {
    const double v = expr();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const std::string shown = s_.size() > 200 ? s_.substr(0, 200) + "..." : s_;
    throw ExprError(fmt::format("in expression \"{}\" at offset {}: {}", shown, pos_, what));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) { ++pos_; return true; }
    return false;
  }
  // Each nesting level is a few stack frames: a pathological expression must fail, not overflow.
  struct Nesting {
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail(fmt::format("nested more than {} levels deep", kMaxDepth));
    }
    ~Nesting() { --p_.depth_; }
    Parser& p_;
  };
  static constexpr int kMaxDepth = 200;
  int depth_ = 0;

  double expr() {
    const Nesting nest(*this);
    double v = term();
    for (;;) {
      if (eat('+')) v += term();
      else if (eat('-')) v -= term();
      else return v;
    }
  }
  double term() {
    double v = unary();
    for (;;) {
      if (eat('*')) {
        v *= unary();
      } else if (eat('/')) {
        const double d = unary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else if (eat('%')) {
        const double d = unary();
        if (v != std::floor(v) || d != std::floor(d)) fail("'%' needs integers");
        if (d == 0) fail("modulo by zero");
        v = std::fmod(v, d);
      } else {
        return v;
      }
    }
  }
  double unary() {
    const Nesting nest(*this);
    if (eat('-')) return -unary();
    if (eat('+')) return unary();
    return primary();
  }
  double primary() {
    skip();
    if (pos_ >= s_.size()) fail("expression ends early");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const double v = expr();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + pos_;
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (end == begin) fail("bad number");
      pos_ += static_cast<size_t>(end - begin);
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name = s_.substr(start, pos_ - start);
      if (eat('(')) return call(name);
      const auto it = params_.find(name);
      // inf and nan, for fills such as -inf (a parameter of that name wins).
      if (it == params_.end() && name == "inf") return std::numeric_limits<double>::infinity();
      if (it == params_.end() && name == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (it == params_.end()) fail("unknown parameter '" + name + "'");
      if (const auto* d = std::get_if<double>(&it->second)) return *d;
      fail("parameter '" + name + "' is a string, not a number");
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  double call(const std::string& name) {
    std::vector<double> args;
    if (!eat(')')) {
      do args.push_back(expr());
      while (eat(','));
      if (!eat(')')) fail("missing ')' after arguments of " + name);
    }
    auto need = [&](size_t n) {
      if (args.size() != n) fail(fmt::format("{} takes {} argument(s), got {}", name, n, args.size()));
    };
    if (name == "ceil_div") {
      need(2);
      if (args[1] == 0) fail("ceil_div by zero");
      return std::ceil(args[0] / args[1]);
    }
    if (name == "min") { need(2); return std::min(args[0], args[1]); }
    if (name == "max") { need(2); return std::max(args[0], args[1]); }
    if (name == "floor") { need(1); return std::floor(args[0]); }
    if (name == "ceil") { need(1); return std::ceil(args[0]); }
    if (name == "sqrt") { need(1); return std::sqrt(args[0]); }
    if (name == "pow") { need(2); return std::pow(args[0], args[1]); }
    if (name == "log2") { need(1); return std::log2(args[0]); }
    fail("unknown function '" + name + "' (known: ceil_div min max floor ceil sqrt pow log2)");
  }

  const std::string& s_;
  const Params& params_;
  size_t pos_ = 0;
};

}  // namespace

double eval_expr(const std::string& text, const Params& params) { return Parser(text, params).parse(); }

long long eval_int_expr(const std::string& text, const Params& params) {
  const double v = eval_expr(text, params);
  const double r = std::nearbyint(v);
  if (!std::isfinite(v) || std::fabs(v - r) > 1e-9)
    throw ExprError(fmt::format("expression \"{}\" is {}, not an integer", text, v));
  // Converting a double beyond long long's range is undefined: refuse it (2^63 is exact in double).
  if (r >= 9223372036854775808.0 || r < -9223372036854775808.0)
    throw ExprError(fmt::format("expression \"{}\" is {}, beyond a 64-bit integer", text, v));
  return static_cast<long long>(r);
}

}  // namespace hk
