#include "app/mutate/mutation_operators.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <random>
#include <set>

#include "app/mutate/token_roles.h"

namespace hk {
namespace {

constexpr size_t kUnmatched = static_cast<size_t>(-1);

// Builds mutants at token positions; one per (operator, place, edit).
class Maker {
 public:
  Maker(const std::string& src, const std::vector<SourceToken>& toks, const std::string& entry)
      : src_(src), t_(toks), r_(token_roles(toks)), mutable_(entry.empty() ? r_.in_body : reachable_from(toks, r_, entry)) {}

  std::vector<Mutant> all() {
    for (size_t i = 0; i < t_.size(); ++i) {
      if (!mutable_[i] || t_[i].directive) continue;
      comparisons(i);
      arithmetic(i);
      constants(i);
      index(i);
      sync(i);
      warp(i);
      rounding(i);
      mask(i);
      arguments(i);
    }
    return std::move(out_);
  }

 private:
  const SourceToken& tok(size_t i) const { static const SourceToken none; return i < t_.size() ? t_[i] : none; }
  bool punct(size_t i, const char* s) const { return i < t_.size() && t_[i].kind == TokenKind::punctuation && t_[i].text == s; }

  // A mutant replacing bytes [begin, end) that start at token `at`.
  void add(const char* op, size_t at, size_t begin, size_t end, std::string repl, const std::string& edit, std::string what) {
    Mutant m;
    m.op = op, m.line = t_[at].line, m.column = t_[at].column, m.begin = begin, m.end = end;
    m.replacement = std::move(repl), m.description = std::move(what);
    m.id = fmt::format("{}@{}:{}/{}", op, m.line, m.column, edit);
    out_.push_back(std::move(m));
  }
  void replace_token(const char* op, size_t i, const std::string& repl) {
    add(op, i, t_[i].begin, t_[i].end, repl, repl, fmt::format("'{}' -> '{}'", t_[i].text, repl));
  }

  // A binary operator: a value ends before it, and it is no declarator or template bracket.
  bool binary(size_t i) const { return i > 0 && ends_value(t_[i - 1]) && !r_.declarator[i] && !r_.template_angle[i]; }

  void comparisons(size_t i) {
    static const std::map<std::string, std::string> bound{{"<", "<="}, {"<=", "<"}, {">", ">="}, {">=", ">"}};
    static const std::map<std::string, std::string> flip{{"<", ">"}, {">", "<"}, {"<=", ">="}, {">=", "<="}, {"==", "!="}, {"!=", "=="}};
    if (t_[i].kind != TokenKind::punctuation || r_.template_angle[i] || !binary(i)) return;
    const auto b = bound.find(t_[i].text);
    if (b != bound.end()) replace_token(r_.loop_condition[i] ? "loop_bound" : "comparison_bound", i, b->second);
    const auto f = flip.find(t_[i].text);
    if (f != flip.end() && !r_.loop_condition[i]) replace_token("comparison_flip", i, f->second);
  }

  void arithmetic(size_t i) {
    static const std::map<std::string, std::string> swap{{"+", "-"}, {"-", "+"}, {"*", "/"}, {"/", "*"},
                                                         {"+=", "-="}, {"-=", "+="}, {"*=", "/="}, {"/=", "*="}};
    const auto s = swap.find(t_[i].text);
    if (t_[i].kind != TokenKind::punctuation || s == swap.end() || !binary(i)) return;
    replace_token("arith_swap", i, s->second);
  }

  // An integer literal, decimal or hex with its suffix: +1 and -1.
  void constants(size_t i) {
    const std::string& s = t_[i].text;
    if (t_[i].kind != TokenKind::literal || s.empty() || !isdigit(static_cast<unsigned char>(s[0]))) return;
    const size_t digits_end = s.find_first_not_of(s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0 ? "0123456789abcdefABCDEFxX" : "0123456789");
    const std::string suffix = digits_end == std::string::npos ? "" : s.substr(digits_end);
    if (suffix.find_first_not_of("uUlL") != std::string::npos) return;  // a floating literal
    unsigned long long v = 0;
    try {
      v = std::stoull(s.substr(0, digits_end), nullptr, 0);
    } catch (const std::exception&) {
      return;
    }
    replace_token("constant", i, std::to_string(v + 1) + suffix);
    if (v > 0) replace_token("constant", i, std::to_string(v - 1) + suffix);
  }

  // a[i] -> a[(i) + 1]; a[r * S + c] -> a[r * (S + 1) + c].
  void index(size_t i) {
    if (!punct(i, "[") || i == 0 || !ends_value(t_[i - 1]) || r_.match[i] == kUnmatched || r_.shared_decl[i] || punct(i + 1, "[")) return;
    const size_t close = r_.match[i];
    if (close == i + 1) return;
    const std::string inner = src_.substr(t_[i + 1].begin, t_[close - 1].end - t_[i + 1].begin);
    add("index_offset", i, t_[i + 1].begin, t_[close - 1].end, "(" + inner + ") + 1", "+1", fmt::format("index [{}] -> [({}) + 1]", inner, inner));
    for (size_t j = i + 1; j + 1 < close; ++j) {
      if ((punct(j, "(") || punct(j, "[")) && r_.match[j] != kUnmatched) j = r_.match[j];
      if (!punct(j, "*") || !binary(j)) continue;
      const size_t k = j + 1;
      const bool single = (t_[k].kind == TokenKind::identifier || t_[k].kind == TokenKind::literal) && !punct(k + 1, "(") &&
                          !punct(k + 1, "[") && !punct(k + 1, "::") && !punct(k + 1, ".");
      if (!single) continue;
      add("index_stride", k, t_[k].begin, t_[k].end, "(" + t_[k].text + " + 1)", "+1", fmt::format("index stride {} -> ({} + 1)", t_[k].text, t_[k].text));
      break;
    }
  }

  void sync(size_t i) {
    if (t_[i].kind != TokenKind::identifier || (t_[i].text != "__syncthreads" && t_[i].text != "__syncwarp") || !punct(i + 1, "(")) return;
    const size_t close = r_.match[i + 1];
    if (close == kUnmatched || (i > 0 && (punct(i - 1, ".") || punct(i - 1, "::")))) return;
    add("sync_removed", i, t_[i].begin, t_[close].end, "(void)0", "removed", fmt::format("{}() removed", t_[i].text));
  }

  // The lane count a warp or wavefront has: 32 <-> 64, and the prelude's HK_WARP_SIZE fixed at either.
  void warp(size_t i) {
    const std::string& s = t_[i].text;
    if (t_[i].kind == TokenKind::literal && (s == "32" || s == "64")) replace_token("warp_width", i, s == "32" ? "64" : "32");
    if (t_[i].kind == TokenKind::identifier && (s == "HK_WARP_SIZE" || s == "warpSize")) {
      replace_token("warp_width", i, "32");
      replace_token("warp_width", i, "64");
    }
  }

  // A store's rounding: round-to-nearest-even conversions to their round-toward-zero variants
  // (hk::from_f32_rz is in the prelude; the CUDA intrinsics where the vendor headers have them).
  void rounding(size_t i) {
    static const std::map<std::string, std::string> rz{{"from_f32", "from_f32_rz"},
                                                       {"__float2half", "__float2half_rz"},
                                                       {"__float2half_rn", "__float2half_rz"},
                                                       {"__float2bfloat16", "__float2bfloat16_rz"},
                                                       {"__float2bfloat16_rn", "__float2bfloat16_rz"}};
    const auto it = rz.find(t_[i].text);
    if (t_[i].kind == TokenKind::identifier && it != rz.end()) replace_token("rounding", i, it->second);
  }

  // `x & m` -> `x` (m one token or a parenthesized group); `a && b` -> `a` (b up to the next
  // top-level && || ? , ; or closing bracket): a mask or a guard dropped.
  void mask(size_t i) {
    if (!(punct(i, "&") || punct(i, "&&")) || !binary(i)) return;
    size_t last = i + 1;
    if (punct(i, "&")) {
      if (punct(last, "(") && r_.match[last] != kUnmatched) last = r_.match[last];
      else if (t_[last].kind != TokenKind::identifier && t_[last].kind != TokenKind::literal) return;
      else if (punct(last + 1, "(") || punct(last + 1, "[") || punct(last + 1, "::") || punct(last + 1, ".") || punct(last + 1, "->")) return;
    } else {
      static const std::set<std::string> stop{"&&", "||", "?", ",", ";", ")", "]", "}", ":"};
      for (size_t j = i + 1; j < t_.size(); ++j) {
        if ((punct(j, "(") || punct(j, "[")) && r_.match[j] != kUnmatched) {
          j = r_.match[j];
          last = j;
          continue;
        }
        if (t_[j].kind == TokenKind::punctuation && stop.count(t_[j].text)) break;
        last = j;
      }
    }
    const std::string dropped = src_.substr(t_[i].begin, t_[last].end - t_[i].begin);
    add("mask_dropped", i, t_[i - 1].end, t_[last].end, "", "dropped", fmt::format("'{}' dropped", dropped));
  }

  // In a call f(..., a, b, ...): two neighbouring one-name arguments swapped (scales, pointers).
  void arguments(size_t i) {
    static const std::set<std::string> not_calls{"if", "for", "while", "switch", "return", "sizeof", "catch"};
    if (!punct(i, "(") || i == 0 || t_[i - 1].kind != TokenKind::identifier || not_calls.count(t_[i - 1].text) || r_.match[i] == kUnmatched) return;
    std::vector<std::pair<size_t, size_t>> args;  // token ranges [first, last]
    size_t start = i + 1;
    for (size_t j = i + 1; j <= r_.match[i]; ++j) {
      if ((punct(j, "(") || punct(j, "[") || punct(j, "{")) && r_.match[j] != kUnmatched && j != r_.match[i]) {
        j = r_.match[j];
        continue;
      }
      if (punct(j, ",") || j == r_.match[i]) {
        if (j > start) args.emplace_back(start, j - 1);
        start = j + 1;
      }
    }
    for (size_t a = 0; a + 1 < args.size(); ++a) {
      const auto [x, xe] = args[a];
      const auto [y, ye] = args[a + 1];
      if (x != xe || y != ye || t_[x].kind != TokenKind::identifier || t_[y].kind != TokenKind::identifier || t_[x].text == t_[y].text) continue;
      const std::string between = src_.substr(t_[x].end, t_[y].begin - t_[x].end);
      add("arg_swap", x, t_[x].begin, t_[y].end, t_[y].text + between + t_[x].text, t_[y].text + "," + t_[x].text,
          fmt::format("arguments {} and {} of {}() swapped", t_[x].text, t_[y].text, t_[i - 1].text));
    }
  }

  const std::string& src_;
  const std::vector<SourceToken>& t_;
  TokenRoles r_;
  std::vector<bool> mutable_;  // the tokens the kernel's run reaches
  std::vector<Mutant> out_;
};

}  // namespace

const std::vector<MutationOperator>& mutation_operators() {
  static const std::vector<MutationOperator> ops{
      {"loop_bound", "a for loop's condition off by one: < <-> <=, > <-> >="},
      {"comparison_bound", "any other comparison off by one: < <-> <=, > <-> >="},
      {"comparison_flip", "a comparison reversed: < <-> >, <= <-> >=, == <-> !="},
      {"arith_swap", "+ <-> -, * <-> /, and their compound assignments"},
      {"constant", "an integer constant +1 and -1"},
      {"index_offset", "a subscript a[i] -> a[(i) + 1]"},
      {"index_stride", "a subscript's stride a[r * S + c] -> a[r * (S + 1) + c]"},
      {"sync_removed", "a __syncthreads() or __syncwarp() removed"},
      {"warp_width", "a lane count 32 <-> 64, HK_WARP_SIZE or warpSize fixed at 32 or 64"},
      {"rounding", "a round-to-nearest store rounding toward zero: hk::from_f32 -> hk::from_f32_rz, __float2half_rn -> _rz, ..."},
      {"mask_dropped", "x & m -> x, a && b -> a: a mask or a guard dropped"},
      {"arg_swap", "two neighbouring one-name arguments of a call swapped (scales, pointers)"},
  };
  return ops;
}

std::vector<Mutant> generate_mutants(const std::string& source, const std::vector<SourceToken>& tokens, const std::string& entry) {
  std::vector<Mutant> all = Maker(source, tokens, entry).all();
  // An edit that two operators make the same way is one mutant.
  std::set<std::string> seen;
  std::vector<Mutant> unique;
  for (Mutant& m : all)
    if (seen.insert(fmt::format("{}:{}:{}", m.begin, m.end, m.replacement)).second) unique.push_back(std::move(m));
  std::stable_sort(unique.begin(), unique.end(), [](const Mutant& a, const Mutant& b) { return a.begin < b.begin; });
  return unique;
}

std::vector<Mutant> select_mutants(std::vector<Mutant> all, size_t max, uint64_t seed) {
  if (max == 0 || all.size() <= max) return all;
  // Fisher-Yates on the engine's raw output: the same seed picks the same mutants everywhere
  // (std::shuffle and the distributions differ between standard libraries).
  std::mt19937_64 rng(seed);
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  order.resize(max);
  std::sort(order.begin(), order.end());
  std::vector<Mutant> picked;
  for (size_t i : order) picked.push_back(std::move(all[i]));
  return picked;
}

}  // namespace hk
