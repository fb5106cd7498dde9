// The rules of output_check.h, one file each in this folder: how each judges one output (a rule's
// fields and how a case plans them: model/check_rule.cpp).
#pragma once

#include <string>
#include <vector>

#include "model/case_plan.h"
#include "check/metrics.h"
#include "check/check_input.h"
#include "model/check_rule.h"
#include "reference.h"

namespace hk {

// Every element within tolerance of the reference's (metrics.h).
void run_elementwise(const CheckInput& in, const CheckPlan& p, OutputMetrics& m);

// The same values in any order along the last dimension: both rows sorted before comparing.
void run_unordered(const CheckInput& in, const CheckPlan& p, OutputMetrics& m);

// An index output judged by the values it selects from the tensor it indexes.
void run_indices(const CheckInput& in, const CheckPlan& p, OutputMetrics& m);

// out * scale within a relative L2 of the tensor that was quantized (dequant.h).
void run_dequant(const CheckInput& in, const CheckPlan& p, OutputMetrics& m);

// Sorts each row (the last dimension) of a tensor's elements in descending order, both the
// kernel's bytes and the reference's values, each by its own values. An unwritten element of got
// sorts last, so it stays unwritten. dtypes of under a byte are not supported (validate first).
void sort_rows_descending(const TensorPlan& t, std::vector<uint8_t>& got, std::vector<double>& expected);

}  // namespace hk
