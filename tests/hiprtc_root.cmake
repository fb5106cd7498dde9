# The private hipRTC (.ci/fetch-hiprtc) that compiles gfx942 and gfx950, found as hkcheck finds it
# (src/platform/hiprtc_root.h): $HKCHECK_HIPRTC_ROOT, else ${XDG_CACHE_HOME:-~/.cache}/hkcheck/hiprtc when
# it holds versions.txt. Sets HIPRTC_ROOT (empty when there is none) and HIPRTC_ROOT_WHY. With
# HKCHECK_REQUIRE_ALL_BACKENDS a missing one is a configure error: CI must not lose those targets.
if(NOT "$ENV{HKCHECK_HIPRTC_ROOT}" STREQUAL "")
  set(candidate "$ENV{HKCHECK_HIPRTC_ROOT}")
elseif(NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(candidate "$ENV{XDG_CACHE_HOME}/hkcheck/hiprtc")
else()
  set(candidate "$ENV{HOME}/.cache/hkcheck/hiprtc")
endif()
set(HIPRTC_ROOT "")
if(EXISTS "${candidate}/versions.txt" OR EXISTS "${candidate}/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
  set(HIPRTC_ROOT "${candidate}")
  set(HIPRTC_ROOT_WHY "found ${candidate}")
  message(STATUS "hipRTC for gfx942/gfx950: ${candidate}")
else()
  set(HIPRTC_ROOT_WHY "none at ${candidate}")
  if(HKCHECK_WITH_HIP AND HKCHECK_REQUIRE_ALL_BACKENDS)
    message(FATAL_ERROR "HKCHECK_REQUIRE_ALL_BACKENDS: no hipRTC for gfx942/gfx950 at ${candidate}: run .ci/fetch-hiprtc "
                        "(or set HKCHECK_HIPRTC_ROOT to a folder it filled)")
  elseif(HKCHECK_WITH_HIP)
    message(WARNING "no hipRTC for gfx942/gfx950 at ${candidate} (run .ci/fetch-hiprtc): their compile-only tests are skipped")
  endif()
endif()
if(HIPRTC_ROOT)
  target_compile_definitions(hkcheck_tests PRIVATE HKCHECK_TEST_HIPRTC_ROOT="${HIPRTC_ROOT}")
endif()
