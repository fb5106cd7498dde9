#include "model/manifest.h"

namespace hk {

const char* role_name(Role r) {
  switch (r) {
    case Role::in: return "in";
    case Role::out: return "out";
    case Role::inout: return "inout";
  }
  return "?";
}

int manifest_repeat(const KernelSpec& k, const CaseSpec& c) { return c.repeat.value_or(k.repeat.value_or(1)); }

}  // namespace hk
