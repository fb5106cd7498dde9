// The target one compile is for, and what of a kernel depends on it: which of its per-vendor
// files, which sections of its "defines" and "options" (docs/manifest.md, "Per-target
// settings"), and whether it has a file for that vendor at all (a CUDA-only kernel on an AMD
// target is SKIP NOT_FOR_VENDOR, not a COMPILE_ERROR).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/manifest.h"

namespace hk {

struct CompileTarget {
  std::string arch;      // "sm_90", "gfx942": the device's, the host profile's, or one --arch
  std::string vendor;    // "cuda" or "hip": whose files are compiled (--source may choose)
  std::string compiler;  // "nvrtc", "hiprtc" or "host"
};

// The target of a run on backend ("cuda", "hip" or "host") whose device (or host profile) has
// arch, compiling source_vendor's files.
CompileTarget run_target(const std::string& backend, const std::string& arch, const std::string& source_vendor);
// The target of --compile-only for arch: its vendor's files, through its vendor's run-time compiler.
CompileTarget compile_only_target(const std::string& arch);

// The vendor a target compiles for: "hip" for gfx targets, "cuda" for the rest (sm_XX, and the
// host profiles, named after a GPU's target).
std::string vendor_of_arch(const std::string& arch);

// What a section's key names, from the least specific to the most: for a define set in several
// sections that apply, the most specific one wins; options are added in this order.
enum class SectionKind { all, vendor, compiler, target };
// Nothing when key is none of "all", cuda, hip, nvrtc, hiprtc, host, sm_<digits>[letter],
// gfx<hex digits>.
std::optional<SectionKind> section_kind(const std::string& key);
bool section_applies(const std::string& key, const CompileTarget& t);

// Whether k has a file for vendor: a kernel with a single "source" file serves both.
bool serves_vendor(const KernelSpec& k, const std::string& vendor);
// Why k is not compiled for t (t.vendor's file is missing), for a SKIP's message.
std::string not_for_vendor_message(const KernelSpec& k, const CompileTarget& t);

// The file a kernel compiles for vendor: its per-vendor source for it, else its only one.
const std::string& source_for(const KernelSpec& k, const std::string& vendor);

// Sets k's source, defines and options to those of t.
void apply_compile_target(KernelSpec& k, const CompileTarget& t);
// Applies t to every kernel, and links the file entries again among those that have a file for
// t's vendor (a kernel that is not compiled adds no entry to another's compile).
void use_compile_target(std::vector<KernelSpec>& kernels, const CompileTarget& t);

}  // namespace hk
