#include "backends/host/static_shared.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace hk::host {
namespace {

template <typename T>
bool read_at(const std::string& b, uint64_t off, T* out) {
  if (off > b.size() || b.size() - off < sizeof(T)) return false;
  std::memcpy(out, b.data() + off, sizeof(T));
  return true;
}

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string();
}

std::string spaceless(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

struct TlsObject {
  std::string function;
  uint64_t size;
};

// Function-local thread-local objects (mangled _ZZ...) of the library's .symtab.
std::vector<TlsObject> local_tls_objects(const std::string& b) {
  std::vector<TlsObject> out;
  Elf64_Ehdr eh;
  if (!read_at(b, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return out;
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh, strtab;
    if (!read_at(b, eh.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), &sh) || sh.sh_type != SHT_SYMTAB) continue;
    if (!read_at(b, eh.e_shoff + uint64_t{sh.sh_link} * sizeof(Elf64_Shdr), &strtab)) continue;
    for (uint64_t s = 0; s + sizeof(Elf64_Sym) <= sh.sh_size; s += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!read_at(b, sh.sh_offset + s, &sym) || ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_shndx == SHN_UNDEF) continue;
      const uint64_t name_at = strtab.sh_offset + sym.st_name;
      if (name_at >= b.size()) continue;
      const char* name = b.data() + name_at;
      if (std::strncmp(name, "_ZZ", 3) != 0 || !std::memchr(name, 0, b.size() - name_at)) continue;
      const std::string d = demangle(name);
      if (!d.empty()) out.push_back(TlsObject{enclosing_function(d), sym.st_size});
    }
  }
  return out;
}

// The entries' texts: symbol stem ("e0") -> the hk_host_name_<stem> string's bytes.
std::vector<std::pair<std::string, std::string>> entry_names(const std::string& b) {
  std::vector<std::pair<std::string, std::string>> out;
  Elf64_Ehdr eh;
  if (!read_at(b, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return out;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (uint16_t i = 0; i < eh.e_shnum; ++i)
    if (!read_at(b, eh.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), &sections[i])) return out;
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[sh.sh_link];
    for (uint64_t s = 0; s + sizeof(Elf64_Sym) <= sh.sh_size; s += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!read_at(b, sh.sh_offset + s, &sym) || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sections.size()) continue;
      const uint64_t name_at = strtab.sh_offset + sym.st_name;
      if (name_at >= b.size() || b.compare(name_at, 13, "hk_host_name_") != 0) continue;
      const std::string stem = std::string(b.c_str() + name_at).substr(13);
      const Elf64_Shdr& data = sections[sym.st_shndx];
      const uint64_t at = data.sh_offset + (sym.st_value - data.sh_addr);
      if (sym.st_value < data.sh_addr || at >= b.size() || sym.st_size == 0 || b.size() - at < sym.st_size) continue;
      out.emplace_back(stem, std::string(b.c_str() + at));
    }
  }
  return out;
}

}  // namespace

int64_t static_shared_bytes_of_symbol(const std::string& elf, const std::string& symbol) {
  std::string own;
  std::vector<std::string> entries;
  for (const auto& [stem, text] : entry_names(elf)) {
    entries.push_back(text);
    if (stem == symbol) own = text;
  }
  return own.empty() ? 0 : static_shared_bytes(elf, own, entries);
}

std::string enclosing_function(const std::string& d) {
  int depth = 0;
  size_t last = std::string::npos;
  for (size_t i = 0; i + 1 < d.size(); ++i) {
    if (d[i] == '(' || d[i] == '<') ++depth;
    if (d[i] == ')' || d[i] == '>') --depth;
    if (depth == 0 && d[i] == ':' && d[i + 1] == ':') last = i, ++i;
  }
  return last == std::string::npos ? d : d.substr(0, last);
}

// "void act<float, true>(float*, int)" -> "act<float, true>"; "rmsnorm" (extern "C") -> itself.
std::string function_name(const std::string& f) {
  int depth = 0;
  size_t name_start = 0, name_end = f.size();
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '<') ++depth;
    if (f[i] == '>') --depth;
    if (depth != 0) continue;
    if (f[i] == ' ') name_start = i + 1;
    if (f[i] == '(') {
      name_end = i;
      break;
    }
  }
  return f.substr(name_start, name_end - name_start);
}

bool is_entry_function(const std::string& function, const std::string& entry) {
  return spaceless(function_name(function)) == spaceless(entry);
}

int64_t static_shared_bytes(const std::string& elf, const std::string& entry, const std::vector<std::string>& entries) {
  int64_t total = 0;
  for (const TlsObject& o : local_tls_objects(elf)) {
    if (o.function.rfind("hk_host", 0) == 0) continue;  // the prelude's own block-wide votes
    bool other_entry = false;
    for (const std::string& e : entries) other_entry = other_entry || (e != entry && is_entry_function(o.function, e));
    if (!other_entry || is_entry_function(o.function, entry)) total += static_cast<int64_t>(o.size);
  }
  return total;
}

}  // namespace hk::host
