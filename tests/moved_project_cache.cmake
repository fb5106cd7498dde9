# The compile cache serves the same project cloned into another folder (as CI clones it on
# every run and keeps only the cache): a copy's run and compile-only read every compile back, and
# its reference library, the compiler's log names the copy's files, and a header changed in the
# copy is compiled again.
#   cmake -DHKCHECK=... -DPROJECT=examples/kernel_project -DOUT=... [-DARCH=sm_90] -P moved_project_cache.cmake
file(REMOVE_RECURSE "${OUT}")
set(kernels example_silu_and_mul example_gelu_tanh_and_mul_f32)

# A header that every compile of activation.cu reads, with a warning naming it in the log.
file(COPY ${PROJECT}/ DESTINATION ${OUT}/a)
file(WRITE ${OUT}/a/kernels/example_notes.h "#warning \"example_notes.h is read\"\n")
file(READ ${OUT}/a/kernels/activation.cu source)
file(WRITE ${OUT}/a/kernels/activation.cu "#include \"example_notes.h\"\n${source}")

# Counts the cases (or compile-only rows) whose compile came from the cache and those compiled. One
# worker: the cases after the first of a compile read it from the worker's memory (a hit) whatever
# order they run in.
function(run_in folder name)
  execute_process(COMMAND ${HKCHECK} --root ${OUT}/${folder} --cache-dir ${OUT}/cache --no-repro --jobs 1 --out ${OUT}/${name} ${ARGN} ${kernels}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${name} run in ${folder} exited ${rc}:\n${err}")
  endif()
  file(READ ${OUT}/${name}/test_results.json doc)
  string(REGEX MATCHALL "\"compile_cached\": *true" hits "${doc}")
  string(REGEX MATCHALL "\"compile_cached\": *false" misses "${doc}")
  list(LENGTH hits n_hits)
  list(LENGTH misses n_misses)
  set(${name}_hits ${n_hits} PARENT_SCOPE)
  set(${name}_misses ${n_misses} PARENT_SCOPE)
  set(${name}_doc "${doc}" PARENT_SCOPE)
  set(${name}_err "${err}" PARENT_SCOPE)
endfunction()

# The log kept with a compile names the folder that reads it.
function(log_names_folder name folder other)
  string(FIND "${${name}_doc}" "${OUT}/${folder}/kernels/example_notes.h" own)
  string(FIND "${${name}_doc}" "${OUT}/${other}/" foreign)
  if(own EQUAL -1 OR NOT foreign EQUAL -1)
    message(FATAL_ERROR "the ${name} run's compiler log should name ${OUT}/${folder}/kernels/example_notes.h (at ${own}) "
                        "and nothing in ${OUT}/${other}/ (at ${foreign})")
  endif()
endfunction()

function(expect name hits misses)
  if(NOT ${name}_hits EQUAL ${hits} OR NOT ${name}_misses EQUAL ${misses})
    message(FATAL_ERROR "the ${name} run read ${${name}_hits} compile(s) from the cache and compiled ${${name}_misses}; "
                        "expected ${hits} and ${misses}")
  endif()
endfunction()

run_in(a run-a --backend host)
if(run-a_misses EQUAL 0)
  message(FATAL_ERROR "a run on an empty cache compiled nothing (${run-a_hits} read from it)")
endif()
log_names_folder(run-a a b)
math(EXPR cases "${run-a_hits} + ${run-a_misses}")

file(COPY ${OUT}/a/ DESTINATION ${OUT}/b)
run_in(b run-b --backend host)
expect(run-b ${cases} 0)
log_names_folder(run-b b a)
# The project's reference library, built by the first clone, serves the copy too.
string(FIND "${run-a_err}" "reference file(s)" built_in_a)
string(FIND "${run-b_err}" "reference file(s)" built_in_b)
if(built_in_a EQUAL -1 OR NOT built_in_b EQUAL -1)
  message(FATAL_ERROR "the reference library should be compiled in a only:\n${run-a_err}\n${run-b_err}")
endif()

if(ARCH)
  run_in(a compile-a --compile-only --arch ${ARCH})
  run_in(b compile-b --compile-only --arch ${ARCH})
  math(EXPR rows "${compile-a_hits} + ${compile-a_misses}")
  expect(compile-b ${rows} 0)
  log_names_folder(compile-b b a)
endif()

# A header changed in the copy: every compile that reads its folder is made again.
file(APPEND ${OUT}/b/kernels/example_notes.h "// changed in the copy\n")
run_in(b run-b-changed --backend host)
expect(run-b-changed ${run-a_hits} ${run-a_misses})
if(ARCH)
  run_in(b compile-b-changed --compile-only --arch ${ARCH})
  expect(compile-b-changed ${compile-a_hits} ${compile-a_misses})
endif()
