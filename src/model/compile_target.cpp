#include "model/compile_target.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <set>

#include "model/kernel_entries.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

bool all_of_from(const std::string& s, size_t from, int (*is)(int)) {
  return s.size() > from && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(), [&](char c) { return is(static_cast<unsigned char>(c)) != 0; });
}

// sm_90, sm_90a, sm_100: digits, then at most one lower-case letter.
bool nvidia_target(const std::string& key) {
  if (key.rfind("sm_", 0) != 0) return false;
  const size_t end = key.size() > 3 && std::islower(static_cast<unsigned char>(key.back())) ? key.size() - 1 : key.size();
  return all_of_from(key.substr(0, end), 3, [](int c) { return std::isdigit(c); });
}

// gfx90a, gfx942, gfx1100: hexadecimal digits (the features after ':' are not part of the name).
bool amd_target(const std::string& key) { return key.rfind("gfx", 0) == 0 && all_of_from(key, 3, [](int c) { return std::isxdigit(c); }); }

std::string vendor_name(const std::string& vendor) {
  const BackendRow* r = backend_for_source_vendor(vendor);
  return r ? r->title : vendor;
}

}  // namespace

std::string vendor_of_arch(const std::string& arch) {
  const BackendRow* r = backend_for_arch(arch);  // a host profile is named after a GPU's target
  return (r ? *r : backend_row(BackendId::cuda)).source_vendor;
}

CompileTarget run_target(const std::string& backend, const std::string& arch, const std::string& source_vendor) {
  // A backend no row names (a test double's) compiles by the host's sections, as it always did.
  const BackendRow* row = find_backend(backend);
  return CompileTarget{arch, source_vendor.empty() ? vendor_of_arch(arch) : source_vendor, (row ? *row : host_backend()).compiler};
}

CompileTarget compile_only_target(const std::string& arch) {
  const std::string vendor = vendor_of_arch(arch);
  return CompileTarget{arch, vendor, backend_for_source_vendor(vendor)->compiler};
}

std::optional<SectionKind> section_kind(const std::string& key) {
  if (key == "all") return SectionKind::all;
  if (backend_for_source_vendor(key)) return SectionKind::vendor;
  if (backend_for_compiler(key)) return SectionKind::compiler;
  if (nvidia_target(key) || amd_target(key)) return SectionKind::target;
  return std::nullopt;
}

bool section_applies(const std::string& key, const CompileTarget& t) {
  const auto kind = section_kind(key);
  if (!kind) return false;
  switch (*kind) {
    case SectionKind::all: return true;
    case SectionKind::vendor: return key == t.vendor;
    case SectionKind::compiler: return key == t.compiler;
    case SectionKind::target: return key == t.arch;
  }
  return false;
}

bool serves_vendor(const KernelSpec& k, const std::string& vendor) { return k.vendor_sources.empty() || k.vendor_sources.count(vendor) > 0; }

std::string not_for_vendor_message(const KernelSpec& k, const CompileTarget& t) {
  std::string have;
  for (const auto& [vendor, file] : k.vendor_sources) have += (have.empty() ? "" : ", ") + vendor_name(vendor);
  const std::string own = k.vendor_sources.empty() ? "" : k.vendor_sources.begin()->first;
  return fmt::format("the manifest gives this kernel a {} file only (\"source\": {{\"{}\": ...}}); {} compiles {} files{}", have, own,
                     t.arch, vendor_name(t.vendor), t.compiler == host_backend().compiler ? " (--source " + own + " runs it on the host backend)" : "");
}

const std::string& source_for(const KernelSpec& k, const std::string& vendor) {
  const auto it = k.vendor_sources.find(vendor);
  return it != k.vendor_sources.end() ? it->second : k.source;
}

void apply_compile_target(KernelSpec& k, const CompileTarget& t) {
  k.source = source_for(k, t.vendor);
  k.defines.clear();
  k.compile_options.clear();
  for (SectionKind kind : {SectionKind::all, SectionKind::vendor, SectionKind::compiler, SectionKind::target}) {
    for (const CompileSection& s : k.compile_sections) {
      if (section_kind(s.key) != kind || !section_applies(s.key, t)) continue;
      for (const auto& [name, value] : s.defines) k.defines[name] = value;  // the more specific section wins
      k.compile_options.insert(k.compile_options.end(), s.options.begin(), s.options.end());
    }
  }
}

void use_compile_target(std::vector<KernelSpec>& kernels, const CompileTarget& t) {
  std::map<std::string, std::set<std::string>> by_source;
  for (KernelSpec& k : kernels) {
    apply_compile_target(k, t);
    if (serves_vendor(k, t.vendor))
      for (const std::string& e : entries_of(k)) by_source[k.source].insert(e);
  }
  for (KernelSpec& k : kernels) {
    const auto& entries = by_source[k.source];
    k.file_entries.assign(entries.begin(), entries.end());
    if (!serves_vendor(k, t.vendor)) k.file_entries = entries_of(k);
  }
}

}  // namespace hk
