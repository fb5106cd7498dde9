// <stddef.h> for NVRTC: the C++ header of the same names (see <cstddef>).
#pragma once
#include <cstddef>
