# A warm rerun, and --resume of a finished run, give the verdict a cold run gives after an edit to
# any header a kernel or a reference reaches: beside the kernel, through "../", on an include
# folder, on an -isystem folder (-I under NVRTC, which has no -isystem), and a reference's own
# header outside references/. Each edit breaks the fixture (FAIL), and undoing it passes again
# from the same cache.
#   cmake -DHKCHECK=... -DFIXTURE=tests/fixtures/header_edits -DOUT=... [-DREPO=.] [-DBACKEND=cuda] -P stale_header_verdicts.cmake
if(NOT BACKEND)
  set(BACKEND host)
endif()
file(REMOVE_RECURSE "${OUT}")
file(COPY ${FIXTURE}/ DESTINATION ${OUT}/p)

# The verdict of the fixture's one case in run `name`, into the variable `name`.
function(run name)
  execute_process(COMMAND ${HKCHECK} --root ${OUT}/p --cache-dir ${OUT}/cache --backend ${BACKEND} --no-repro --jobs 1 --out ${OUT}/${name} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT EXISTS ${OUT}/${name}/test_results.json)
    message(FATAL_ERROR "run ${name} wrote no results (exit ${rc}):\n${out}\n${err}")
  endif()
  file(READ ${OUT}/${name}/test_results.json doc)
  string(REGEX MATCHALL "\"status\": *\"[A-Z_]+\"" verdicts "${doc}")
  set(${name} "${verdicts}" PARENT_SCOPE)
endfunction()

function(expect name verdict why)
  if(NOT "${${name}}" STREQUAL "\"status\": \"${verdict}\"")
    message(FATAL_ERROR "${why}: run ${name} gave ${${name}}, expected ${verdict}")
  endif()
endfunction()

run(cold)
expect(cold PASS "the fixture as written")
set(last cold)
foreach(header kernels/scale/beside.h kernels/common/parent.h inc/lib_factor.h sys/sys_factor.h shared/ref_factor.h)
  file(READ ${OUT}/p/${header} was)
  string(REPLACE "1.0" "3.0" broken "${was}")
  string(REPLACE "2.0" "3.0" broken "${broken}")
  file(WRITE ${OUT}/p/${header} "${broken}")
  string(MAKE_C_IDENTIFIER ${header} id)
  run(warm_${id})
  expect(warm_${id} FAIL "${header} edited, the same cache")
  # --resume of the last run, whose case passed: its result is stale now and runs again.
  file(COPY ${OUT}/${last}/ DESTINATION ${OUT}/resume_${id})
  run(resume_${id} --resume ${OUT}/resume_${id})
  expect(resume_${id} FAIL "${header} edited, --resume of a run that passed")
  file(WRITE ${OUT}/p/${header} "${was}")
  run(undone_${id})
  expect(undone_${id} PASS "${header} as it was, the same cache")
  set(last undone_${id})
endforeach()

# This repository's own sage_attention reaches kernels/attention/online_softmax.h through "../":
# breaking it must fail the warm rerun, as it fails a cold one.
if(REPO)
  file(COPY ${REPO}/kernels ${REPO}/references DESTINATION ${OUT}/attn)
  file(COPY ${REPO}/manifests/attention_paged.json DESTINATION ${OUT}/attn/manifests)
  function(run_attention name)
    execute_process(COMMAND ${HKCHECK} --root ${OUT}/attn --cache-dir ${OUT}/cache --backend ${BACKEND} --no-repro --out ${OUT}/${name} sage_attention
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    file(READ ${OUT}/${name}/test_results.json doc)
    string(REGEX MATCHALL "\"status\": *\"(PASS|SKIP)\"" ok "${doc}")
    string(REGEX MATCHALL "\"status\": *\"[A-Z_]+\"" all "${doc}")
    list(LENGTH ok n_ok)
    list(LENGTH all n_all)
    set(${name}_ok ${n_ok} PARENT_SCOPE)
    set(${name}_all ${n_all} PARENT_SCOPE)
  endfunction()
  run_attention(attn_cold)
  if(attn_cold_all EQUAL 0 OR NOT attn_cold_ok EQUAL attn_cold_all)
    message(FATAL_ERROR "sage_attention as written: ${attn_cold_ok} of ${attn_cold_all} cases passed or were skipped")
  endif()
  set(header ${OUT}/attn/kernels/attention/online_softmax.h)
  file(READ ${header} was)
  string(REPLACE "kLog2e = 1.4426950408889634f" "kLog2e = 1.3f" broken "${was}")
  if(broken STREQUAL was)
    message(FATAL_ERROR "online_softmax.h no longer defines kLog2e as this test breaks it")
  endif()
  file(WRITE ${header} "${broken}")
  run_attention(attn_warm)
  if(NOT attn_warm_ok LESS attn_warm_all)
    message(FATAL_ERROR "online_softmax.h broken: the warm rerun still passed all ${attn_warm_all} cases of sage_attention")
  endif()
endif()
