# ctest fuzz_manifest_loading: builds the fuzz target with clang (tests/fuzz/CMakeLists.txt) and
# runs it for SECONDS from a corpus seeded with the repository's manifests. Any crash, leak,
# timeout or sanitizer report fails the test, and libFuzzer leaves the input that did it in
# BUILD (crash-*, leak-*, timeout-*): fix it, add a unit test, and keep the input in
# tests/fuzz/regressions so that every later run tries it first.
#   -DCLANGXX= -DSRC=tests/fuzz -DBUILD= "-DSEEDS=manifests;tests/fuzz/regressions" -DSECONDS=
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BUILD} -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_BUILD_TYPE=
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the fuzz target failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} -j2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the fuzz target failed:\n${out}")
endif()
file(REMOVE_RECURSE ${BUILD}/corpus)
file(MAKE_DIRECTORY ${BUILD}/corpus)
# One process, a fixed budget; -timeout catches a hang on one input, -rss_limit_mb a blow-up.
execute_process(COMMAND ${BUILD}/manifest_fuzz -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
                        -print_final_stats=1 -artifact_prefix=${BUILD}/ ${BUILD}/corpus ${SEEDS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${out}")
message(STATUS "fuzzing ${SECONDS} s: ${runs}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzz target failed (${rc}); the input is in ${BUILD}:\n${out}")
endif()
