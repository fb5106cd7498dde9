// JUnit XML, the test report CI systems (GitHub, GitLab, Jenkins) display natively: one testsuite
// per kernel, one testcase per case, and the verdict as failure, error or skipped.
#pragma once

#include <string>
#include <vector>

#include "report.h"
#include "report_text.h"  // xml_escape

namespace hk {

// FAIL, FLAKY, LEAK and XPASS are failures (the kernel is wrong); CRASH, TIMEOUT, COMPILE_ERROR,
// ERROR and NOT_RUN errors (the case could not be judged); SKIP and XFAIL skipped, with the reason.
std::string results_junit(const RunInfo& run, const std::vector<CaseResult>& results);

}  // namespace hk
