// The double's target and the host profile that declares its limits: gfx942 is the mi325x
// profile (wavefront 64). HKCHECK_HIP_DOUBLE_ARCH names another target that some host profile has.
#pragma once

#include <string>

#include "platform/host_profile.h"

namespace hk::hip_double {

std::string device_arch();  // "gfx942" unless HKCHECK_HIP_DOUBLE_ARCH says otherwise
// The host profile of arch ("gfx942", or with feature flags "gfx942:sramecc+"); nullptr when none has it.
const HostProfile* profile_for_arch(const std::string& arch);
std::string profile_arches();  // "gfx942 (mi325x)", for messages

}  // namespace hk::hip_double
