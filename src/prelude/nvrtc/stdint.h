// <stdint.h> for NVRTC: the C++ header of the same names (see <cstdint>).
#pragma once
#include <cstdint>
