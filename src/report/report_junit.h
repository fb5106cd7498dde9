// JUnit XML, the test report CI systems (GitHub, GitLab, Jenkins) display natively: one testsuite
// per kernel, one testcase per case, and the verdict as failure, error or skipped.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "util/report_text.h"  // xml_escape

namespace hk {

// FAIL, FLAKY, LEAK and XPASS are failures (the kernel is wrong); CRASH, TIMEOUT, COMPILE_ERROR
// and ERROR errors (the case could not be judged); SKIP, XFAIL and NOT_RUN (a case -x or an
// interrupt left unstarted: not a finding of its own) skipped, with the reason. A failure's or an
// error's message is its one-line reason; its text, what a reviewer needs: each wrong output's
// figures and first mismatch, guard breaches, the message and the compiler log's first lines.
std::string results_junit(const RunInfo& run, const std::vector<CaseResult>& results);

}  // namespace hk
