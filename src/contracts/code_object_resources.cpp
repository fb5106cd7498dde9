#include "contracts/code_object_resources.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <vector>

namespace hk {
namespace {

// Bounds-checked little-endian reads from a byte string.
struct Bytes {
  const std::string& b;
  bool ok = true;
  template <typename T> T at(uint64_t off) {
    T v{};
    if (off > b.size() || b.size() - off < sizeof(T)) {
      ok = false;
      return v;
    }
    std::memcpy(&v, b.data() + off, sizeof(T));
    return v;
  }
};

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
  uint32_t link = 0;
};

// The sections of a 64-bit little-endian ELF file, or nothing.
std::optional<std::vector<Section>> elf_sections(const std::string& data, std::string* why) {
  Bytes r{data};
  if (data.size() < 64 || data.compare(0, 4, "\x7f" "ELF") != 0 || data[4] != 2 || data[5] != 1) {
    *why = "not a 64-bit little-endian ELF file";
    return std::nullopt;
  }
  const uint64_t shoff = r.at<uint64_t>(0x28);
  const uint16_t shentsize = r.at<uint16_t>(0x3a), shnum = r.at<uint16_t>(0x3c), shstrndx = r.at<uint16_t>(0x3e);
  if (!r.ok || shentsize < 64 || shstrndx >= shnum) {
    *why = "the ELF section table is malformed";
    return std::nullopt;
  }
  std::vector<Section> out(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + uint64_t{i} * shentsize;
    out[i].type = r.at<uint32_t>(h + 4);
    out[i].offset = r.at<uint64_t>(h + 24);
    out[i].size = r.at<uint64_t>(h + 32);
    out[i].link = r.at<uint32_t>(h + 40);
    out[i].entsize = r.at<uint64_t>(h + 56);
    out[i].name = std::to_string(r.at<uint32_t>(h));  // name offset, resolved below
  }
  const Section& names = out[shstrndx];
  for (Section& s : out) {
    const uint64_t at = names.offset + std::stoull(s.name);
    if (at >= data.size()) {
      *why = "a section name lies outside the file";
      return std::nullopt;
    }
    s.name = std::string(data.c_str() + at, strnlen(data.c_str() + at, data.size() - at));
  }
  if (!r.ok) {
    *why = "the ELF file is truncated";
    return std::nullopt;
  }
  return out;
}

const Section* find(const std::vector<Section>& ss, const std::string& name) {
  for (const Section& s : ss)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

void to_json(nlohmann::json& j, const KernelResources& r) {
  j = nlohmann::json::object();
  auto put = [&](const char* k, int64_t v) {
    if (v >= 0) j[k] = v;
  };
  put("registers", r.registers);
  put("agprs", r.agprs);
  put("static_shared_bytes", r.static_shared_bytes);
  put("local_bytes", r.local_bytes);
  put("spilled", r.spilled);
  put("sgprs", r.sgprs);
  put("wavefront", r.wavefront);
  put("max_threads_per_block", r.max_threads_per_block);
  if (!r.param_bytes.empty()) j["param_bytes"] = r.param_bytes;
}

void from_json(const nlohmann::json& j, KernelResources& r) {
  r = KernelResources{};
  auto get = [&](const char* k, int64_t& v) {
    if (j.contains(k) && j[k].is_number_integer()) v = j[k].get<int64_t>();
  };
  get("registers", r.registers);
  get("agprs", r.agprs);
  get("static_shared_bytes", r.static_shared_bytes);
  get("local_bytes", r.local_bytes);
  get("spilled", r.spilled);
  get("sgprs", r.sgprs);
  get("wavefront", r.wavefront);
  get("max_threads_per_block", r.max_threads_per_block);
  if (j.contains("param_bytes") && j["param_bytes"].is_array())
    for (const auto& b : j["param_bytes"])
      if (b.is_number_integer()) r.param_bytes.push_back(b.get<int64_t>());
}

std::optional<KernelResources> cubin_resources(const std::string& cubin, const std::string& symbol, std::string* why) {
  const auto sections = elf_sections(cubin, why);
  if (!sections) return std::nullopt;
  Bytes r{cubin};
  // The symbol's index in .symtab: .nv.info's attributes name kernels by it.
  const Section* symtab = find(*sections, ".symtab");
  int64_t index = -1;
  if (symtab && symtab->entsize == 24 && symtab->link < sections->size()) {
    const Section& strtab = (*sections)[symtab->link];
    for (uint64_t i = 0; i * 24 < symtab->size && index < 0; ++i) {
      const uint64_t at = strtab.offset + r.at<uint32_t>(symtab->offset + i * 24);
      if (at < cubin.size() && cubin.size() - at > symbol.size() && cubin.compare(at, symbol.size(), symbol) == 0 &&
          cubin[at + symbol.size()] == '\0')
        index = static_cast<int64_t>(i);
    }
  }
  if (index < 0 || !find(*sections, ".text." + symbol)) {
    *why = "the CUBIN has no kernel '" + symbol + "'";
    return std::nullopt;
  }
  KernelResources res;
  // .nv.info: records of {format u8, attribute u8, u16 value or payload size}; with format 4 the
  // payload follows. REGCOUNT (0x2f) and FRAME_SIZE (0x11) carry {symbol index u32, value u32}.
  if (const Section* info = find(*sections, ".nv.info")) {
    for (uint64_t p = info->offset; p + 4 <= info->offset + info->size && r.ok;) {
      const uint8_t format = r.at<uint8_t>(p), attribute = r.at<uint8_t>(p + 1);
      const uint16_t value = r.at<uint16_t>(p + 2);
      if (format == 4 && value >= 8 && r.at<uint32_t>(p + 4) == static_cast<uint32_t>(index)) {
        if (attribute == 0x2f) res.registers = r.at<uint32_t>(p + 8);
        if (attribute == 0x11) res.local_bytes = r.at<uint32_t>(p + 8);
      }
      p += 4 + (format == 4 ? value : 0);
    }
  }
  // Static shared memory is the size of the kernel's .nv.shared section. From sm_80 on, CUDA 13's
  // cubins count the 1 KiB the driver reserves in every block into it, marked by a
  // .nv.shared.reserved section (measured: 4096 B declared -> 5120 on sm_90, 4096 on sm_80).
  const Section* shared = find(*sections, ".nv.shared." + symbol);
  const bool reserved = find(*sections, ".nv.shared.reserved.0") != nullptr;
  res.static_shared_bytes = shared ? static_cast<int64_t>(shared->size) - (reserved && shared->size >= 1024 ? 1024 : 0) : 0;
  if (!r.ok) {
    *why = "the CUBIN's .nv.info section is truncated";
    return std::nullopt;
  }
  return res;
}

std::optional<KernelResources> amdgpu_resources(const std::string& code_object, const std::string& symbol, std::string* why) {
  const auto sections = elf_sections(code_object, why);
  if (!sections) return std::nullopt;
  Bytes r{code_object};
  for (const Section& s : *sections) {
    if (s.type != 7) continue;  // SHT_NOTE
    for (uint64_t p = s.offset; p + 12 <= s.offset + s.size && r.ok;) {
      const uint32_t namesz = r.at<uint32_t>(p), descsz = r.at<uint32_t>(p + 4), type = r.at<uint32_t>(p + 8);
      const uint64_t name_at = p + 12, desc_at = name_at + ((namesz + 3) & ~3u);
      if (desc_at + descsz > code_object.size()) break;
      if (type == 32 && namesz >= 6 && code_object.compare(name_at, 6, "AMDGPU") == 0) {  // NT_AMDGPU_METADATA
        nlohmann::json meta;
        try {
          meta = nlohmann::json::from_msgpack(code_object.substr(desc_at, descsz));
        } catch (const nlohmann::json::exception& e) {
          *why = std::string("the code object's metadata is not msgpack: ") + e.what();
          return std::nullopt;
        }
        for (const auto& k : meta.value("amdhsa.kernels", nlohmann::json::array())) {
          if (!k.is_object() || (k.value(".name", "") != symbol && k.value(".symbol", "") != symbol + ".kd")) continue;
          KernelResources res;
          auto num = [&](const char* key) { return k.contains(key) && k[key].is_number_integer() ? k[key].get<int64_t>() : -1; };
          res.registers = num(".vgpr_count");
          res.agprs = num(".agpr_count");
          res.sgprs = num(".sgpr_count");
          res.static_shared_bytes = num(".group_segment_fixed_size");
          res.local_bytes = num(".private_segment_fixed_size");
          res.wavefront = num(".wavefront_size");
          res.max_threads_per_block = num(".max_flat_workgroup_size");
          const int64_t vs = num(".vgpr_spill_count"), ss = num(".sgpr_spill_count");
          if (vs >= 0 || ss >= 0) res.spilled = std::max<int64_t>(vs, 0) + std::max<int64_t>(ss, 0);
          for (const auto& a : k.value(".args", nlohmann::json::array())) {
            if (!a.is_object() || a.value(".value_kind", "").rfind("hidden_", 0) == 0) continue;
            res.param_bytes.push_back(a.contains(".size") && a[".size"].is_number_integer() ? a[".size"].get<int64_t>() : -1);
          }
          return res;
        }
        *why = "the code object has no kernel '" + symbol + "'";
        return std::nullopt;
      }
      p = desc_at + ((descsz + 3) & ~3u);
    }
  }
  *why = "the code object has no AMDGPU metadata note";
  return std::nullopt;
}

void add_ptxas_figures(const std::string& log, const std::string& symbol, KernelResources& r) {
  static const std::regex smem(R"((\d+) bytes smem)"), spill(R"((\d+) bytes spill stores)");
  std::istringstream in(log);
  bool mine = false;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 1024) continue;
    if (line.find("Compiling entry function '") != std::string::npos || line.find("Function properties for ") != std::string::npos)
      mine = line.find("'" + symbol + "'") != std::string::npos || line.find("for " + symbol) != std::string::npos;
    if (!mine) continue;
    if (std::regex_search(line, m, spill)) r.spilled = std::stoll(m[1]);
    if (line.find("Used ") != std::string::npos) r.static_shared_bytes = std::regex_search(line, m, smem) ? std::stoll(m[1]) : 0;
  }
}

std::optional<KernelResources> code_resources(ResourceFormat format, const std::string& binary, const std::string& symbol, std::string* why) {
  switch (format) {
    case ResourceFormat::cubin: return cubin_resources(binary, symbol, why);
    case ResourceFormat::amdgpu: return amdgpu_resources(binary, symbol, why);
    case ResourceFormat::none: break;
  }
  if (why) *why = "no resources for this backend";
  return std::nullopt;
}

}  // namespace hk
