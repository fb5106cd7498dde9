// Which hipRTC --compile-only compiles gfx targets with: "system" (this system's own library
// search, e.g. Debian bookworm's 5.2.3, which compiles gfx90a only) or a private folder that
// .ci/fetch-hiprtc filled with a newer hipRTC, its comgr and LLVM, and the glibc they need. Such
// a folder's libraries need its own loader, so compile workers are started under it; nothing
// else in hkcheck (the case workers, the host compiler) sees that folder.
#pragma once

#include <string>
#include <vector>

namespace hk {

inline constexpr const char* kSystemHiprtc = "system";

// ${XDG_CACHE_HOME:-~/.cache}/hkcheck/hiprtc, where .ci/fetch-hiprtc puts it.
std::string fetched_hiprtc_dir();

// The hipRTC to compile with: option when given (non-empty), else $HKCHECK_HIPRTC_ROOT, else the
// fetched folder when it holds versions.txt, else "system".
std::string choose_hiprtc_root(const std::string& option);

// The folder holding usr/ in root: root/root as .ci/fetch-hiprtc lays it out, else root itself.
std::string hiprtc_sysroot(const std::string& root);
// sysroot/usr/lib/x86_64-linux-gnu: the libraries and the loader.
std::string hiprtc_lib_dir(const std::string& root);

// The words that start a program under root's loader with root's libraries first:
// {LOADER, "--library-path", LIBDIR}. Empty for "system". Throws std::runtime_error naming the
// missing folder or loader (and .ci/fetch-hiprtc) when root is not such a folder.
std::vector<std::string> hiprtc_loader_prefix(const std::string& root);

}  // namespace hk
