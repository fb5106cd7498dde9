#include "case_phase.h"

namespace hk {
namespace {
std::function<void(const std::string&)>& sink() {
  static std::function<void(const std::string&)> s;
  return s;
}
}  // namespace

void set_case_phase_sink(std::function<void(const std::string& phase)> s) { sink() = std::move(s); }

void enter_case_phase(const std::string& phase) {
  if (sink()) sink()(phase);
}

}  // namespace hk
