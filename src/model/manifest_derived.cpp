// Reading a derived tensor's init, {"kind": "reference", "reference": R, "output": O}, and the
// rules a kernel's derived tensors keep together (docs/manifest.md, "Derived tensors").
#include <fmt/format.h>

#include "model/manifest.h"
#include "model/manifest_read.h"

namespace hk::manifest_read {

GeneratorSpec read_derived_init(const nlohmann::json& v, const std::string& path) {
  check_keys(v, path, {"kind", "reference", "output"});
  GeneratorSpec g;
  g.kind = kDerivedKind;
  for (const char* field : {"reference", "output"}) {
    if (!v.contains(field)) fail(path + "/" + field, "required field is missing");
    if (!v[field].is_string() || v[field].get<std::string>().empty())
      fail(path + "/" + field, fmt::format("expected a name as a string, got {}", kind_of(v[field])));
  }
  g.reference = v["reference"].get<std::string>();
  g.output = v["output"].get<std::string>();
  if (!is_identifier(g.reference)) fail(path + "/reference", "a reference name is a C identifier, as HK_REFERENCE(name) defines it");
  return g;
}

// One run per case makes every derived tensor, on the tensors that are not derived: so all of
// them name one reference (a second would be a run that might want the first one's values), and
// the run's outputs neither collide with each other nor hide an input of the same name.
void check_derived_tensors(const std::vector<TensorSpec>& tensors, const std::string& path) {
  const TensorSpec* first = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorSpec& t = tensors[i];
    if (!t.init || t.init->kind != kDerivedKind) continue;
    const std::string at = fmt::format("{}/tensors/{}/init", path, i);
    if (first && t.init->reference != first->init->reference)
      fail(at + "/reference", fmt::format("'{}' is made by reference '{}' and '{}' by '{}': the derived tensors of a kernel come from "
                                          "one run of one reference on the tensors that are not derived, so none can be made "
                                          "from another derived tensor",
                                          t.name, t.init->reference, first->name, first->init->reference));
    if (!first) first = &t;
    for (size_t j = 0; j < tensors.size(); ++j) {
      const TensorSpec& o = tensors[j];
      const bool derived = o.init && o.init->kind == kDerivedKind;
      if (j < i && derived && o.init->output == t.init->output)
        fail(at + "/output", fmt::format("'{}' takes the output '{}' as '{}' does: each output of the run makes one tensor",
                                         t.name, t.init->output, o.name));
      if (!derived && o.role != Role::out && o.name == t.init->output)
        fail(at + "/output", fmt::format("'{}' is also an input of the case, which the run of '{}' reads under that name: its "
                                         "output would hide it (a derived tensor cannot be made from another one)",
                                         o.name, t.init->reference));
    }
  }
}

}  // namespace hk::manifest_read
