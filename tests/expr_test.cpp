#include "model/expr.h"

#include <gtest/gtest.h>

#include <limits>

namespace hk {
namespace {

const Params kParams = {{"M", 7.0}, {"N", 4096.0}, {"eps", 1e-6}, {"dtype", std::string("bf16")}};

TEST(Expr, ArithmeticAndPrecedence) {
  EXPECT_DOUBLE_EQ(eval_expr("1 + 2 * 3", kParams), 7);
  EXPECT_DOUBLE_EQ(eval_expr("(1 + 2) * 3", kParams), 9);
  EXPECT_DOUBLE_EQ(eval_expr("-M + 10", kParams), 3);
  EXPECT_DOUBLE_EQ(eval_expr("N / 2 - 1", kParams), 2047);
  EXPECT_DOUBLE_EQ(eval_expr("N % 1000", kParams), 96);
  EXPECT_DOUBLE_EQ(eval_expr("eps * 2", kParams), 2e-6);
  EXPECT_DOUBLE_EQ(eval_expr("1e3", kParams), 1000);
}

TEST(Expr, Functions) {
  EXPECT_EQ(eval_int_expr("ceil_div(M * N, 256)", kParams), 112);
  EXPECT_EQ(eval_int_expr("ceil_div(1000, 256)", kParams), 4);
  EXPECT_EQ(eval_int_expr("min(M, 3) + max(M, 3)", kParams), 10);
  EXPECT_EQ(eval_int_expr("pow(2, 10)", kParams), 1024);
  EXPECT_EQ(eval_int_expr("log2(N)", kParams), 12);
  EXPECT_EQ(eval_int_expr("floor(7 / 2) + ceil(7 / 2)", kParams), 7);
}

TEST(Expr, ErrorsSayWhatIsWrong) {
  auto message = [](const std::string& text) {
    try {
      eval_int_expr(text, kParams);
    } catch (const ExprError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("K * 2").find("unknown parameter 'K'"), std::string::npos);
  EXPECT_NE(message("dtype + 1").find("is a string"), std::string::npos);
  EXPECT_NE(message("M / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(message("M / 2").find("not an integer"), std::string::npos);
  EXPECT_NE(message("(M + 1").find("missing ')'"), std::string::npos);
  EXPECT_NE(message("M +").find("ends early"), std::string::npos);
  EXPECT_NE(message("M $ 2").find("unexpected"), std::string::npos);
  EXPECT_NE(message("cbrt(8)").find("unknown function"), std::string::npos);
  EXPECT_NE(message("min(1)").find("takes 2"), std::string::npos);
  EXPECT_NE(message("pow(10, 19)").find("beyond a 64-bit integer"), std::string::npos);
  EXPECT_NE(message("-pow(2, 63) - pow(2, 12)").find("beyond a 64-bit integer"), std::string::npos);
  EXPECT_EQ(eval_int_expr("-pow(2, 63)", kParams), std::numeric_limits<long long>::min());
}

}  // namespace
}  // namespace hk
