# The reference cache on the host backend: a second run reads every reference back and reaches
# the same verdicts (fused_rmsnorm_fp8_quant_fwd: with the tensor its reference adds for a check;
# per_token_quant_fwd and topk: checks that read an input, which a run decodes from the packed
# inputs only for them; fused_add_rmsnorm: an inout tensor);
# a damaged entry is computed again with a note; --no-ref-cache computes all
# of them and is kept in the run record (so --resume and rerun.sh keep it).
#   cmake -DHKCHECK=... -DMANIFESTS=... -DOUT=... -P reference_cache.cmake
file(REMOVE_RECURSE "${OUT}")
set(common --backend host --no-repro --manifests ${MANIFESTS} --cache-dir ${OUT}/cache rmsnorm silu fused_rmsnorm_fp8_quant_fwd per_token_quant_fwd fused_add_rmsnorm topk/*N33*)

function(run_into name)
  execute_process(COMMAND ${HKCHECK} ${common} ${ARGN} --out ${OUT}/${name} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${name} run exited ${rc}:\n${err}")
  endif()
  file(READ ${OUT}/${name}/test_results.json doc)
  string(REGEX MATCHALL "\"reference_cached\": *true" hits "${doc}")
  string(REGEX MATCHALL "\"reference_cached\": *false" misses "${doc}")
  list(LENGTH hits n_hits)
  list(LENGTH misses n_misses)
  set(${name}_hits ${n_hits} PARENT_SCOPE)
  set(${name}_misses ${n_misses} PARENT_SCOPE)
  set(${name}_doc "${doc}" PARENT_SCOPE)
endfunction()

function(same_verdicts a b)
  execute_process(COMMAND ${HKCHECK} diff ${OUT}/${a} ${OUT}/${b} --fail-on change OUTPUT_VARIABLE diff RESULT_VARIABLE rc)
  string(FIND "${diff}" "0 other change(s)" same)
  if(NOT rc EQUAL 0 OR same EQUAL -1)
    message(FATAL_ERROR "the ${b} run's verdicts differ from the ${a} run's (exit ${rc}):\n${diff}")
  endif()
endfunction()

run_into(cold)
if(NOT cold_hits EQUAL 0 OR cold_misses EQUAL 0)
  message(FATAL_ERROR "a run on an empty cache read ${cold_hits} reference(s) from it and computed ${cold_misses}")
endif()
run_into(warm)
if(NOT warm_hits EQUAL cold_misses OR NOT warm_misses EQUAL 0)
  message(FATAL_ERROR "the second run read ${warm_hits} of ${cold_misses} references back and computed ${warm_misses}")
endif()
same_verdicts(cold warm)

# One entry damaged: computed again, said in its case's notes, the verdicts unchanged.
file(GLOB entries ${OUT}/cache/reference-outputs/*.ref)
list(GET entries 0 victim)
execute_process(COMMAND truncate -s -16 ${victim} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not truncate ${victim}")
endif()
run_into(repaired)
string(FIND "${repaired_doc}" "were damaged" noted)
if(NOT repaired_misses EQUAL 1 OR noted EQUAL -1)
  message(FATAL_ERROR "with one entry truncated, the run computed ${repaired_misses} reference(s) (expected 1) and noted the damage: ${noted}")
endif()
same_verdicts(cold repaired)

# Every entry damaged near its end, its size kept, so the damage is seen only after the outputs
# were read: each reference runs again on its inputs as generated (an inout tensor too, not on
# what the torn read left in it), the verdicts unchanged.
file(GLOB entries ${OUT}/cache/reference-outputs/*.ref)
foreach(entry IN LISTS entries)
  file(SIZE ${entry} size)
  math(EXPR at "${size} - 12")
  execute_process(COMMAND dd if=/dev/zero of=${entry} bs=1 seek=${at} count=8 conv=notrunc status=none RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "could not damage ${entry}")
  endif()
endforeach()
run_into(all_repaired)
if(NOT all_repaired_misses EQUAL cold_misses)
  message(FATAL_ERROR "with every entry truncated, the run computed ${all_repaired_misses} of ${cold_misses} references")
endif()
same_verdicts(cold all_repaired)

run_into(uncached --no-ref-cache)
if(NOT uncached_hits EQUAL 0 OR NOT uncached_misses EQUAL cold_misses)
  message(FATAL_ERROR "--no-ref-cache read ${uncached_hits} reference(s) from the cache and computed ${uncached_misses} of ${cold_misses}")
endif()
string(REGEX MATCH "\"reference_cache\": *false" kept "${uncached_doc}")
if(NOT kept)
  message(FATAL_ERROR "--no-ref-cache is not in the run record")
endif()
same_verdicts(cold uncached)
