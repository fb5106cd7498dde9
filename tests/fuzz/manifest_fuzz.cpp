// libFuzzer target for what hkcheck reads from users: any bytes as a manifest (loaded as a run
// loads it, with the repository's kernels beside it, so that the fields past "source" are
// validated too) and as an expression over a case's parameters. Loading may only end in
// kernels or in errors naming the file and field: never a crash, a hang, a leak or an exception.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "model/expr.h"
#include "model/manifest.h"
#include "model/manifest_load.h"

namespace {

// A project folder for the fuzzed manifest, removed at exit: manifests/ to write into, kernels/
// the repository's.
struct ProjectFolder {
  std::string dir;
  ProjectFolder() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hkcheck_fuzz_XXXXXX").string();
    dir = mkdtemp(tmpl.data());
    std::filesystem::create_directories(dir + "/manifests");
    std::error_code ec;
    std::filesystem::create_directory_symlink(std::string(REPO_DIR) + "/kernels", dir + "/kernels", ec);
  }
  ~ProjectFolder() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

void load_as_manifest(const std::string& text) {
  static const ProjectFolder project;
  static const std::string path = project.dir + "/manifests/fuzzed.json";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  hk::ManifestLoad loaded = hk::load_manifest(path);
  hk::link_file_entries(loaded.kernels);
}

void evaluate_as_expression(const std::string& text) {
  const hk::Params params = {{"M", 7.0}, {"D", 4096.0}, {"dtype", std::string("f16")}};
  try {
    hk::eval_expr(text, params);
    hk::eval_int_expr(text, params);
  } catch (const hk::ExprError&) {
    // the one exception an expression may end in
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  load_as_manifest(text);
  if (size < 4096) evaluate_as_expression(text);
  return 0;
}
