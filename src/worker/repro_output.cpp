#include "worker/repro_output.h"

#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "contracts/tensor_file.h"
#include "model/dtype.h"
#include "util/file_util.h"
#include "util/slug.h"

namespace hk {
namespace fs = std::filesystem;

void write_repro_output(const std::string& dir, const TensorPlan& t, const std::vector<uint8_t>& got,
                        const std::vector<double>& expected) {
  fs::create_directories(dir + "/output");
  const std::string base = dir + "/output/" + file_name_slug(t.name);
  if (got.size() > kMaxReproTensorBytes) {
    write_file_atomic_or_throw(base + ".LEFT_OUT.txt", fmt::format("{} bytes: over the {} bytes a repro keeps\n", got.size(), kMaxReproTensorBytes));
    return;
  }
  write_tensor_file(base + ".got.hkt", TensorFile{t.name, t.dtype, t.shape, got});
  write_tensor_file(base + ".expected.hkt", TensorFile{t.name, DType::f64, t.shape, pack(DType::f64, expected)});
}

}  // namespace hk
