# A run whose patterns select no case (a -k typo) exits 3 and leaves the results folder as it
# was: the last run's test_results.json, which --last-failed reads, is not replaced by an empty run.
#   cmake -DHKCHECK=... -DREPO=... -DOUT=... -P empty_selection_keeps_results.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(KEPT "{\"kept\": \"the last run's results\"}")
file(WRITE ${OUT}/test_results.json "${KEPT}")
execute_process(COMMAND ${HKCHECK} --backend host --manifests ${REPO}/manifests --out ${OUT} -k no_case_is_named_like_this
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "exit ${rc}, expected 3 (nothing checked):\n${out}${err}")
endif()
file(READ ${OUT}/test_results.json now)
if(NOT now STREQUAL KEPT)
  message(FATAL_ERROR "test_results.json was replaced by a run that selected nothing:\n${now}")
endif()
if(NOT err MATCHES "no case selected")
  message(FATAL_ERROR "the run should say it selected nothing:\n${err}")
endif()
