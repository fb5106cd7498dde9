# Runs the known-bad corpus on one backend and checks every verdict it declares:
#   cmake -DHKCHECK=... -DCHECKER=... -DCORPUS=... -DBACKEND=host [-DHOST_PROFILE=mi355x] [-DEXTRA=--races -DCHECK_ARGS=--controls-only] -DOUT=... -P run_known_bad.cmake
# A run of the corpus is all XFAIL and PASS, so hkcheck itself must exit 0 as well. An "expect"
# may name an arch, and on the host backend the profile decides the arch (h100 when not given).
file(REMOVE_RECURSE "${OUT}")
set(profile_args)
if(HOST_PROFILE)
  set(profile_args --host-profile "${HOST_PROFILE}")
endif()
execute_process(
  COMMAND "${HKCHECK}" --manifests "${CORPUS}" --backend "${BACKEND}" ${profile_args} ${EXTRA} --out "${OUT}" --no-cache --timeout 30
  RESULT_VARIABLE run_rc)
if(NOT EXISTS "${OUT}/test_results.json")
  message(FATAL_ERROR "hkcheck wrote no results (exit ${run_rc})")
endif()
execute_process(COMMAND "${CHECKER}" "${OUT}/test_results.json" "${CORPUS}" ${CHECK_ARGS} RESULT_VARIABLE check_rc)
if(NOT check_rc EQUAL 0)
  message(FATAL_ERROR "the corpus did not reach its declared verdicts (see above; ${OUT}/test_results.md)")
endif()
# With --controls-only the other cases may reach other verdicts, and hkcheck then exits 1.
if(NOT run_rc EQUAL 0 AND NOT CHECK_ARGS)
  message(FATAL_ERROR "every verdict is as declared, yet hkcheck exited ${run_rc} instead of 0")
endif()
# Expected failures still failed underneath, so each gets a repro folder like any failure.
file(GLOB repro_manifests "${OUT}/repro/kb_head_offset/*/manifest.json")
if(NOT repro_manifests)
  message(FATAL_ERROR "no repro folder for the XFAIL case kb_head_offset under ${OUT}/repro")
endif()
