// Short folder names for devices: "NVIDIA H100 80GB HBM3" -> "h100", "AMD Instinct MI325X" -> "mi325x".
#pragma once

#include <string>

namespace hk {
std::string device_slug(const std::string& device_name);
}
