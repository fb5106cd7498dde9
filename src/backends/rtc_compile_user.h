// NVRTC and hipRTC compile inside hkcheck's processes, which stay root for the GPU. Under root
// each such compile reads files as the compile user (process/compile_user.h), as the host
// backend's compilers do in processes of their own: its include folders are spelled so that user
// reaches them, and its messages name them again as they were given.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/backend.h"

namespace hk {

using RtcCompileCall = std::function<CompileOutput(const std::vector<std::string>& base_options, const CompileRequest& q)>;

// compile(base_options, q) as the compile user under root; as it is otherwise.
CompileOutput compile_as_compile_user(const std::vector<std::string>& base_options, const CompileRequest& q, const RtcCompileCall& compile);

// hipRTC's comgr keeps its own cache in AMD_COMGR_CACHE_DIR, written by the compile, so as the
// compile user under root: that folder is made and given to that user, and when a folder above
// it is root's alone (the cache under /root) AMD_COMGR_CACHE_DIR names it through a descriptor
// this process keeps. Before the process's first compile: comgr may read its environment once.
// Nothing changes without root or without the variable; an error leaves comgr to cache nothing.
void prepare_comgr_cache_for_compile_user();

}  // namespace hk
