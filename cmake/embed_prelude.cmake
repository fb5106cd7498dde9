# Turns the device prelude headers into C++ string constants, so hkcheck hands them to the
# run-time compiler from memory. Run with -DSRC_DIR=... -DOUT_DIR=...
file(READ "${SRC_DIR}/hkcheck.h" HKCHECK_H)
file(READ "${SRC_DIR}/hk_minifloat.h" MINIFLOAT_H)
file(READ "${SRC_DIR}/hk_host.h" HOST_H)
file(READ "${SRC_DIR}/hk_host_abi.h" HOST_ABI_H)
set(DELIM "HKPRELUDE")
file(WRITE "${OUT_DIR}/prelude_sources.h.tmp"
"// Generated from src/prelude/ by cmake/embed_prelude.cmake; do not edit.
#pragma once
namespace hk {
inline constexpr const char* kPreludeHkcheck = R\"${DELIM}(${HKCHECK_H})${DELIM}\";
inline constexpr const char* kPreludeMinifloat = R\"${DELIM}(${MINIFLOAT_H})${DELIM}\";
inline constexpr const char* kPreludeHost = R\"${DELIM}(${HOST_H})${DELIM}\";
inline constexpr const char* kPreludeHostAbi = R\"${DELIM}(${HOST_ABI_H})${DELIM}\";
}  // namespace hk
")
file(COPY_FILE "${OUT_DIR}/prelude_sources.h.tmp" "${OUT_DIR}/prelude_sources.h" ONLY_IF_DIFFERENT)
