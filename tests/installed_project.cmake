# A team's kernel project outside the repository, run by an installed hkcheck from the project's
# own folder: `cmake --install` into PREFIX, three files written from scratch (a manifest, a plain
# CUDA kernel, an Eigen reference), and a host run that must pass. Nothing of hkcheck is rebuilt:
# the new reference is compiled at run time. Run with -DBUILD=... -DPREFIX=... -DPROJECT=... -DCACHE=...
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
file(REMOVE_RECURSE ${PROJECT})
file(WRITE ${PROJECT}/kernels/axpy.cu [=[
// out = a * x + y, a plain CUDA template kernel named by its instantiation in the manifest.
template <typename T>
__global__ void axpy(T* out, const T* x, const T* y, T a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
]=])
file(WRITE ${PROJECT}/references/axpy_reference.cpp [=[
#include "reference.h"
HK_REFERENCE(team_axpy) {
  const double a = ctx.num("a");
  auto out = ctx.matrix("out");
  out = a * ctx.matrix("x") + ctx.matrix("y");
}
]=])
file(WRITE ${PROJECT}/manifests/axpy.json [=[
{"hkcheck_manifest": 1, "kernels": [{
  "name": "team_axpy", "source": "../kernels/axpy.cu", "entry": "axpy<float>", "reference": "team_axpy",
  "params": {"n": 1000, "a": 1.5}, "cases": [{"sweep": {"n": [1, 1000, 100000]}}],
  "tensors": [
    {"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
    {"name": "y", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "uniform", "low": -2, "high": 2}},
    {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out", "tolerance": {"ulps": 1, "atol": 1e-6, "why": "a*x+y with or without a fused multiply-add: one f32 rounding apart"}}],
  "args": ["out", "x", "y", {"dtype": "f32", "value": "a"}, {"dtype": "i32", "value": "n"}],
  "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}]}
]=])
execute_process(COMMAND ${PREFIX}/bin/hkcheck --backend host --no-repro --cache-dir ${CACHE} --out ${PROJECT}/results
                WORKING_DIRECTORY ${PROJECT} RESULT_VARIABLE rc ERROR_VARIABLE err)
message(STATUS "${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed hkcheck did not pass the project (exit code ${rc})")
endif()
if(NOT err MATCHES "3 cases: 3 PASS")
  message(FATAL_ERROR "expected 3 cases, all PASS")
endif()

# A case of the project that fails: its repro folder's rerun.sh must run it again with the
# installed hkcheck and reach the same verdict, the project's own reference included (the repro's
# one-case manifest names the reference file; the installed references do not have it).
file(WRITE ${PROJECT}/kernels/axpy_wrong.cu [=[
template <typename T>
__global__ void axpy(T* out, const T* x, const T* y, T a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] - y[i];
}
]=])
file(READ ${PROJECT}/manifests/axpy.json manifest)
string(REPLACE "\"team_axpy\", \"source\": \"../kernels/axpy.cu\"" "\"team_axpy_wrong\", \"source\": \"../kernels/axpy_wrong.cu\"" manifest "${manifest}")
string(REPLACE "[1, 1000, 100000]" "[1000]" manifest "${manifest}")
file(WRITE ${PROJECT}/wrong/axpy_wrong.json "${manifest}")
execute_process(COMMAND ${PREFIX}/bin/hkcheck --backend host --host-profile mi325x --repeat 2 --cache-dir ${CACHE} --manifests wrong
                        --out ${PROJECT}/results_wrong
                WORKING_DIRECTORY ${PROJECT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "the wrong kernel should fail the run (exit 1), got ${rc}:\n${err}")
endif()
file(GLOB_RECURSE reruns ${PROJECT}/results_wrong/repro/*/rerun.sh)
list(LENGTH reruns n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one repro folder, found ${n}: ${reruns}")
endif()
file(READ ${reruns} rerun_text)
foreach(option "--host-profile mi325x" "--repeat 2" "--backend host")
  string(FIND "${rerun_text}" "${option}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "rerun.sh does not carry ${option}:\n${rerun_text}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E env HKCHECK=${PREFIX}/bin/hkcheck sh ${reruns} --cache-dir ${CACHE}
                WORKING_DIRECTORY / RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "1 cases: 0 PASS, 1 FAIL")
  message(FATAL_ERROR "rerun.sh of the failing case should FAIL it again (exit 1), got ${rc}:\n${err}")
endif()
