// Arithmetic expressions over a case's parameters, as used for shapes, launch dimensions and
// scalar arguments: numbers, names, + - * / %, parentheses, unary minus and a few functions.
#pragma once

#include <stdexcept>
#include <string>

#include "model/params.h"

namespace hk {

struct ExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Evaluates text over params; throws ExprError saying what is wrong and where.
double eval_expr(const std::string& text, const Params& params);
// As eval_expr, but the result must be an integer (within 1e-9); throws ExprError otherwise.
long long eval_int_expr(const std::string& text, const Params& params);

}  // namespace hk
