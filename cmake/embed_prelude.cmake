# Turns the device prelude headers into C++ string constants, so hkcheck hands them to the
# run-time compilers from memory. Files directly in src/prelude/ go to every compiler; those in
# src/prelude/host/ only to the host backend's C++ compiler (what CUDA headers mean on a CPU),
# those in src/prelude/nvrtc/ only to NVRTC (the standard headers it lacks), those in
# src/prelude/hiprtc5/ only to ROCm 5's hipRTC (what its built-in headers lack). A file's name is its
# path below its set's folder, as a kernel includes it. Run with -DSRC_DIR=... -DOUT_DIR=...
set(DELIM "HKPRELUDE")
set(ENTRIES "")
file(GLOB_RECURSE FILES RELATIVE "${SRC_DIR}" "${SRC_DIR}/*")
list(SORT FILES)
foreach(REL IN LISTS FILES)
  if(REL MATCHES "^(host|nvrtc|hiprtc5)/(.+)$")
    set(SET "${CMAKE_MATCH_1}")
    set(NAME "${CMAKE_MATCH_2}")
  else()
    set(SET "common")
    set(NAME "${REL}")
  endif()
  file(READ "${SRC_DIR}/${REL}" TEXT)
  if(TEXT MATCHES "\\)${DELIM}\"")
    message(FATAL_ERROR "${REL} contains the embedding delimiter )${DELIM}\"")
  endif()
  string(APPEND ENTRIES "    {\"${SET}\", \"${NAME}\", R\"${DELIM}(${TEXT})${DELIM}\"},\n")
endforeach()
file(WRITE "${OUT_DIR}/prelude_sources.h.tmp"
"// Generated from src/prelude/ by cmake/embed_prelude.cmake; do not edit.
#pragma once
namespace hk {
struct EmbeddedPreludeFile {
  const char* set;   // \"common\", \"host\", \"nvrtc\" or \"hiprtc5\"
  const char* name;  // as a kernel includes it
  const char* text;
};
inline constexpr EmbeddedPreludeFile kPreludeFiles[] = {
${ENTRIES}};
}  // namespace hk
")
file(COPY_FILE "${OUT_DIR}/prelude_sources.h.tmp" "${OUT_DIR}/prelude_sources.h" ONLY_IF_DIFFERENT)
