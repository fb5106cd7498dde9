// An output tensor's plan for tests of the comparison code, without a manifest.
#pragma once

#include <string>
#include <vector>

#include "model/case_plan.h"

namespace hk::test {

inline TensorPlan out_tensor(DType t, std::vector<int64_t> shape, Tolerance tol, const std::string& name = "out") {
  TensorPlan p;
  p.name = name;
  p.dtype = t;
  p.shape = shape;
  p.numel = 1;
  for (auto d : shape) p.numel *= d;
  p.role = Role::out;
  p.tolerance = tol;
  return p;
}

}  // namespace hk::test
