#include "code_object.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace hk::hip_double {
namespace {

constexpr char kMagic[8] = {'H', 'K', 'H', 'I', 'P', 'D', 'B', 'L'};
constexpr uint32_t kMaxName = 1 << 16, kMaxEntries = 1 << 16;  // beyond these a table is garbage

void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_text(std::string& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out += s;
}

// Where the ELF file starting at image ends: past its headers, its segments and its sections.
size_t elf_end(const unsigned char* image) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, image, sizeof eh);
  size_t end = std::max<size_t>(eh.e_ehsize, eh.e_phoff + size_t{eh.e_phnum} * eh.e_phentsize);
  end = std::max<size_t>(end, eh.e_shoff + size_t{eh.e_shnum} * eh.e_shentsize);
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, image + eh.e_phoff + size_t{i} * eh.e_phentsize, sizeof ph);
    end = std::max<size_t>(end, ph.p_offset + ph.p_filesz);
  }
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, image + eh.e_shoff + size_t{i} * eh.e_shentsize, sizeof sh);
    if (sh.sh_type != SHT_NOBITS) end = std::max<size_t>(end, sh.sh_offset + sh.sh_size);
  }
  return end;
}

}  // namespace

std::string pack_code_object(const CodeObject& code) {
  std::string out = code.library;
  out.append(kMagic, sizeof kMagic);
  put_u32(out, static_cast<uint32_t>(code.entries.size()));
  for (const auto& [lowered, symbol] : code.entries) {
    put_text(out, lowered);
    put_text(out, symbol);
  }
  return out;
}

std::optional<CodeObject> unpack_code_object(const void* image, std::string* why) {
  const auto* p = static_cast<const unsigned char*>(image);
  if (!p) {
    *why = "no image";
    return std::nullopt;
  }
  if (std::memcmp(p, ELFMAG, SELFMAG) != 0 || p[EI_CLASS] != ELFCLASS64) {
    *why = "the image is not a 64-bit ELF file";
    return std::nullopt;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, p, sizeof eh);
  if (eh.e_machine == EM_AMDGPU) {
    *why = "the image is AMDGPU code: this test double runs the host libraries its own hipRTC builds";
    return std::nullopt;
  }
  if (eh.e_type != ET_DYN || eh.e_machine != EM_X86_64) {
    *why = "the image is not a shared library of this machine";
    return std::nullopt;
  }
  const size_t end = elf_end(p);
  const unsigned char* at = p + end;
  if (std::memcmp(at, kMagic, sizeof kMagic) != 0) {
    *why = "the image has no kernel table after its ELF file (not built by this double's hipRTC)";
    return std::nullopt;
  }
  at += sizeof kMagic;
  auto u32 = [&] {
    uint32_t v;
    std::memcpy(&v, at, sizeof v);
    at += sizeof v;
    return v;
  };
  auto text = [&](std::string* s) {
    const uint32_t n = u32();
    if (n > kMaxName) return false;
    s->assign(reinterpret_cast<const char*>(at), n);
    at += n;
    return true;
  };
  CodeObject code;
  code.library.assign(reinterpret_cast<const char*>(p), end);
  const uint32_t count = u32();
  for (uint32_t i = 0; i < count && count <= kMaxEntries; ++i) {
    std::string lowered, symbol;
    if (!text(&lowered) || !text(&symbol)) {
      *why = "the image's kernel table is corrupt";
      return std::nullopt;
    }
    code.entries[lowered] = symbol;
  }
  if (count > kMaxEntries) {
    *why = "the image's kernel table is corrupt";
    return std::nullopt;
  }
  return code;
}

}  // namespace hk::hip_double
