// A host kernel's static shared memory, as a GPU compiler would count it. On the host backend a
// __shared__ array is a function-local `static thread_local` (hk_host.h), so the library's symbol
// table holds each one as a thread-local object named after the function that declares it: a
// kernel's own arrays, plus those of every function that is not another entry of the library
// (its __device__ helpers: counted for each kernel, as one of them may call them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hk::host {

// elf: the kernel library's bytes; entry: the manifest's entry expression ("rmsnorm",
// "act<float, true>"); entries: every entry the library was built for. The prelude's own
// block-wide statics (hk_host_*) are not the kernel's. Returns 0 for a library with no symbol
// table (nothing is known).
int64_t static_shared_bytes(const std::string& elf, const std::string& entry, const std::vector<std::string>& entries);

// The same for the entry whose trampoline is hk_host_entry_<symbol> ("e0", ...), its text and
// those of the library's other entries read from the hk_host_name_<symbol> strings the
// trampolines define. 0 for a library without them.
int64_t static_shared_bytes_of_symbol(const std::string& elf, const std::string& symbol);

// The function a demangled local static belongs to, as written before its last top-level "::"
// ("void act<float, true>(float*)::tile" -> "void act<float, true>(float*)").
std::string enclosing_function(const std::string& demangled);

// True when a demangled function (as enclosing_function gives it) is the entry expression.
bool is_entry_function(const std::string& function, const std::string& entry);

}  // namespace hk::host
