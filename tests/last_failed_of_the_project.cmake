# A bare --lf / --last-failed runs what did not pass in the project's last run that checked
# something (PROJECT/.hkcheck/last-run.json, last_run.h), in whichever folder that run wrote; a
# run that selects nothing leaves it as it was; `--lf NAME` takes NAME as a kernel pattern.
#   cmake -DHKCHECK=... -DREPO=... -DWORK=... -P last_failed_of_the_project.cmake
file(REMOVE_RECURSE ${WORK})
file(COPY ${REPO}/tests/fixtures/mutate_unscored/ DESTINATION ${WORK}/project/manifests)  # one FAIL, two SKIP
function(run expected out)
  execute_process(COMMAND ${HKCHECK} --root ${WORK}/project --backend host --jobs 1 --out ${WORK}/${out} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE err)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "hkcheck ${ARGN}: exit ${rc}, expected ${expected}:\n${o}${err}")
  endif()
  set(err "${err}" PARENT_SCOPE)
endfunction()
function(expect_only_the_failure out)
  file(READ ${WORK}/${out}/test_results.json r)
  string(REGEX MATCHALL "\"kernel\": \"[a-z_]+\"" kernels "${r}")
  if(NOT kernels STREQUAL "\"kernel\": \"no_passing_case\"")
    message(FATAL_ERROR "${out} should hold the failed case alone: ${kernels}")
  endif()
endfunction()

run(2 none --lf)
if(NOT err MATCHES "no last run is recorded for this project")
  message(FATAL_ERROR "a first --lf should say there is no last run:\n${err}")
endif()
run(1 first)
run(3 typo -k no_case_is_named_like_this)
run(1 again --lf)
expect_only_the_failure(again)
run(1 named --lf no_passing_case)
expect_only_the_failure(named)
run(1 spelled --last-failed)
expect_only_the_failure(spelled)
