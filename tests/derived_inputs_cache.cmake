# Derived tensors' runs are cached like references (derived_inputs.h): a backward kernel's
# forward pass is kept on the first run and read back on the second (a damaged entry is noted
# and run again, which only a read can find), with the same verdicts.
#   cmake -DHKCHECK=... -DMANIFESTS=... -DOUT=... -P derived_inputs_cache.cmake
file(REMOVE_RECURSE "${OUT}")
set(common --backend host --no-repro --manifests ${MANIFESTS} --cache-dir ${OUT}/cache flash_attn_bwd -k one_key -k one_query)

function(run_into name)
  execute_process(COMMAND ${HKCHECK} ${common} --out ${OUT}/${name} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${name} run exited ${rc}:\n${err}")
  endif()
  file(READ ${OUT}/${name}/test_results.json doc)
  set(${name}_doc "${doc}" PARENT_SCOPE)
endfunction()

# The entries that hold a forward pass's outputs (out and lse), not a backward's (dq, dk, dv).
function(forward_entries out_var)
  file(GLOB entries ${OUT}/cache/reference-outputs/*.ref)
  set(found)
  foreach(entry IN LISTS entries)
    file(STRINGS ${entry} head LIMIT_COUNT 1 LIMIT_INPUT 4096)
    if(head MATCHES "\"tensors\":\\[\"out\",\"lse\"\\]")
      list(APPEND found ${entry})
    endif()
  endforeach()
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()

run_into(cold)
forward_entries(kept)
list(LENGTH kept n_kept)
if(n_kept EQUAL 0)
  message(FATAL_ERROR "the first run kept no forward pass in the cache")
endif()

# Damaged near the end, so only reading the outputs finds it.
foreach(entry IN LISTS kept)
  file(SIZE ${entry} size)
  math(EXPR at "${size} - 12")
  execute_process(COMMAND dd if=/dev/zero of=${entry} bs=1 seek=${at} count=8 conv=notrunc status=none)
endforeach()
run_into(warm)
string(REGEX MATCHALL "were damaged" noted "${warm_doc}")
list(LENGTH noted n_noted)
if(NOT n_noted EQUAL n_kept)
  message(FATAL_ERROR "${n_kept} forward passes damaged in the cache, ${n_noted} noted as damaged on the rerun: they are not read back")
endif()
execute_process(COMMAND ${HKCHECK} diff ${OUT}/cold ${OUT}/warm --fail-on change OUTPUT_VARIABLE diff RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the rerun's verdicts differ:\n${diff}")
endif()
message(STATUS "${n_kept} forward passes kept, read back (damage noted) and run again with the same verdicts")
