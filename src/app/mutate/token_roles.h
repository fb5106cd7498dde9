// What the tokens of a kernel source are, beyond their kind: which lie in a kernel's or a
// __device__ function's body (the only code mutated), which `<`/`>` are template brackets, which
// `*`/`&` declare a pointer or reference, and which comparisons are a for loop's condition.
#pragma once

#include <string>
#include <vector>

#include "app/mutate/clang_tokens.h"

namespace hk {

// A __global__ or __device__ function with a body: its name and the tokens of its braces.
struct DeviceFunction {
  std::string name;
  bool kernel = false;  // __global__ / HK_KERNEL
  size_t open = 0, close = 0;
};

struct TokenRoles {
  std::vector<DeviceFunction> functions;
  std::vector<bool> in_body;        // inside the braces of a __global__ / __device__ function
  std::vector<bool> loop_condition;  // inside the condition of a for statement
  std::vector<bool> template_angle;  // a `<` or `>` (or `>>`) bracketing template arguments
  std::vector<bool> declarator;      // a `*` or `&` in a declaration (T* p = ...), not an operator
  std::vector<bool> shared_decl;     // in a __shared__ declaration
  std::vector<size_t> match;         // for ( [ { and their closers: the partner's index (else npos)
};

TokenRoles token_roles(const std::vector<SourceToken>& tokens);

// The tokens of the bodies that can run when the kernel `entry` runs ("act<float, true>": its
// name is what comes before '<'): its own body and the __device__ functions it calls, directly
// or through each other. Other kernels' bodies are left out, as are helpers only they call.
// An entry no kernel of the file is named for (a macro-made one) gets every body.
std::vector<bool> reachable_from(const std::vector<SourceToken>& tokens, const TokenRoles& roles, const std::string& entry);

// True for the tokens after which a `+ - * &` is a binary operator: a value ends there.
bool ends_value(const SourceToken& t);

}  // namespace hk
