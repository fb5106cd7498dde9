#include "model/include_options.h"

namespace hk {
namespace {

struct IncludeOptionName {
  const char* name;
  IncludeOptionKind kind;
};
constexpr IncludeOptionName kIncludeOptions[] = {
    {"-iquote", IncludeOptionKind::quote},           {"-isystem", IncludeOptionKind::system},   {"-idirafter", IncludeOptionKind::after},
    {"-include", IncludeOptionKind::forced},         {"-imacros", IncludeOptionKind::forced},   {"-I", IncludeOptionKind::dir},
    {"--include-path=", IncludeOptionKind::dir},     {"--system-include=", IncludeOptionKind::system},
    {"--pre-include=", IncludeOptionKind::forced}};

}  // namespace

std::optional<IncludeOption> include_option_at(const std::vector<std::string>& options, size_t i) {
  const std::string& o = options[i];
  for (const IncludeOptionName& n : kIncludeOptions) {
    const std::string name = n.name;
    if (o == name && name.back() != '=') {
      if (i + 1 >= options.size()) return std::nullopt;
      return IncludeOption{n.kind, options[i + 1], 2};
    }
    if (o.size() > name.size() && o.compare(0, name.size(), name) == 0) return IncludeOption{n.kind, o.substr(name.size()), 1};
  }
  return std::nullopt;
}

}  // namespace hk
