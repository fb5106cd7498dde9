#include "contracts/tensor_file.h"

#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "util/file_util.h"

namespace hk {
namespace {

using nlohmann::json;
constexpr char kMagic[8] = {'H', 'K', 'T', 'E', 'N', 'S', 'R', '1'};

}  // namespace

void write_tensor_file(const std::string& path, const TensorFile& t) {
  const std::string header = json{{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}}.dump();
  std::string data(kMagic, sizeof kMagic);
  const uint32_t n = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i) data += static_cast<char>((n >> (8 * i)) & 0xFF);
  data += header;
  data.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  write_file_atomic_or_throw(path, data);
}

TensorFile read_tensor_file(const std::string& path) {
  const std::string data = read_file(path);
  if (data.size() < 12 || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    throw std::runtime_error(path + ": not an hkcheck tensor file (no HKTENSR1 magic)");
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>(data[8 + i])) << (8 * i);
  if (12 + static_cast<size_t>(n) > data.size()) throw std::runtime_error(path + ": header runs past the end of the file");
  TensorFile t;
  try {
    const json h = json::parse(data.substr(12, n));
    t.name = h.at("name");
    const auto dt = parse_dtype(h.at("dtype").get<std::string>());
    if (!dt) throw std::runtime_error("unknown dtype " + h.at("dtype").dump());
    t.dtype = *dt;
    t.shape = h.at("shape").get<std::vector<int64_t>>();
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": bad header: " + e.what());
  }
  t.bytes.assign(data.begin() + 12 + n, data.end());
  int64_t numel = 1;
  for (int64_t d : t.shape) numel *= d;
  if (t.bytes.size() != static_cast<size_t>(numel) * dtype_size(t.dtype))
    throw std::runtime_error(fmt::format("{}: {} bytes of data, the header's shape needs {}", path, t.bytes.size(),
                                         static_cast<size_t>(numel) * dtype_size(t.dtype)));
  return t;
}

}  // namespace hk
