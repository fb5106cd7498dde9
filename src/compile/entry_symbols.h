// Entries given as mangled symbols ("_Z7reduce0IiEvPT_S1_j") beside entries given by name. A
// compiler's name expression takes a C++ name, not a symbol: a symbol is demangled into the name
// expression that instantiates it ("reduce0<int>"), and its kernel is then found under it.
#pragma once

#include <string>

namespace hk {

// Whether entry is an Itanium C++ symbol rather than a name: "_Z" and identifier characters only.
bool is_mangled_symbol(const std::string& entry);

// The name expression of a function symbol: "_Z7reduce0IiEvPT_S1_j" -> "reduce0<int>",
// "_ZN2ns6kernelEPf" -> "ns::kernel". Empty when the symbol does not demangle to a function.
std::string name_expression_of_symbol(const std::string& symbol);

}  // namespace hk
