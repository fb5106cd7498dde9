# Results are never replaced by a run that checked nothing or ran elsewhere (results_owner.h):
# - a run on another backend (a README line with --backend cuda, here or on a machine without the
#   GPU) or a compile-only into the folder is refused, exit 2, the folder as it was;
# - a run on the same device whose every case is skipped exits 3 and writes beside, into
#   OUT/nothing-checked, the folder's results as they were;
# - --force replaces them.
#   cmake -DHKCHECK=... -DREPO=... -DOUT=... -P results_of_another_run_are_kept.cmake
file(REMOVE_RECURSE ${OUT})
set(FIXTURE ${REPO}/tests/fixtures/all_skipped)  # one case, of the large tier: skipped unless --tier all
function(run expected)
  execute_process(COMMAND ${HKCHECK} --manifests ${FIXTURE} --out ${OUT} --jobs 1 ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "hkcheck ${ARGN}: exit ${rc}, expected ${expected}:\n${out}${err}")
  endif()
  set(err "${err}" PARENT_SCOPE)
endfunction()
function(expect_kept what)
  file(READ ${OUT}/test_results.json now)
  if(NOT now STREQUAL checked)
    message(FATAL_ERROR "${what} replaced the checked results")
  endif()
endfunction()

run(0 --backend host --tier all)
file(READ ${OUT}/test_results.json checked)

run(2 --backend cuda --tier all)
expect_kept("a run on another backend")
if(NOT err MATCHES "holds the results of a run on .*\\(host\\).*--force")
  message(FATAL_ERROR "the refusal should name the run the folder holds and --force:\n${err}")
endif()
run(2 --compile-only --arch sm_90)
expect_kept("a compile-only")

run(3 --backend host)
expect_kept("a run whose every case was skipped")
if(NOT EXISTS ${OUT}/nothing-checked/test_results.json OR NOT err MATCHES "nothing was checked, so .* keeps the results")
  message(FATAL_ERROR "the skipped run's reports belong in ${OUT}/nothing-checked, and the run should say so:\n${err}")
endif()

run(3 --backend host --force)
file(READ ${OUT}/test_results.json now)
if(now STREQUAL checked OR NOT now MATCHES "\"SKIP\"")
  message(FATAL_ERROR "--force should replace the results")
endif()
