// A manifest kernel's "defines", "include_dirs" and "options", read into its compile sections
// (docs/manifest.md, "Per-target settings" and "Options"). Part of load_manifest: errors are
// thrown as manifest_read::FieldError naming the JSON path.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/manifest.h"

namespace hk {

// Reads them from kernel (at JSON path, of manifest file) into k: its compile_sections, and its
// defines and compile_options as the "all" section gives them.
void read_compile_settings(const nlohmann::json& kernel, const std::string& path, const std::string& file, KernelSpec& k);

// Every define of a section other than "all" substituted over every case's params: planning the
// cases checks the "all" ones; these must not wait for the target they apply to.
void check_section_defines(const KernelSpec& k);

}  // namespace hk
