#include "backends/host/host_params.h"

#include <fmt/format.h>

namespace hk::host {
namespace {

constexpr char kKindLetters[] = "?pfiuo";  // in the order of ParamKind

ParamKind kind_of(char c) {
  switch (c) {
    case 'p': return ParamKind::pointer;
    case 'f': return ParamKind::floating;
    case 'i': return ParamKind::signed_int;
    case 'u': return ParamKind::unsigned_int;
    case 'o': return ParamKind::other;
    default: throw BackendError(fmt::format("the kernel library lists a parameter of unknown kind '{}'", c), false);
  }
}

}  // namespace

std::vector<KernelParam> parse_host_params(const std::string& text) {
  std::vector<KernelParam> params;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    // "K N TYPE": a kind letter, the size in bytes, the type's name.
    const size_t space = line.find(' ', 2);
    if (line.size() < 4 || line[1] != ' ' || space == std::string::npos || space == 2)
      throw BackendError(fmt::format("the kernel library lists a parameter as '{}', not 'KIND BYTES TYPE'", line), false);
    KernelParam p;
    p.kind = kind_of(line[0]);
    for (size_t i = 2; i < space; ++i) {
      if (line[i] < '0' || line[i] > '9' || p.bytes > (size_t{1} << 40))
        throw BackendError(fmt::format("the kernel library lists a parameter size as '{}'", line.substr(2, space - 2)), false);
      p.bytes = p.bytes * 10 + static_cast<size_t>(line[i] - '0');
    }
    p.type = line.substr(space + 1);
    // One spelling whichever compiler built the library: clang writes "float *", g++ "float*".
    for (size_t q; (q = p.type.find(" *")) != std::string::npos || (q = p.type.find(" &")) != std::string::npos;) p.type.erase(q, 1);
    params.push_back(std::move(p));
  }
  return params;
}

std::string host_params_text(const std::vector<KernelParam>& params) {
  std::string text;
  for (const KernelParam& p : params) text += fmt::format("{} {} {}\n", kKindLetters[static_cast<int>(p.kind)], p.bytes, p.type);
  return text;
}

}  // namespace hk::host
