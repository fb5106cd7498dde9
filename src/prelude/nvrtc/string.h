// <string.h> for NVRTC: the C++ header of the same names (see <cstring>).
#pragma once
#include <cstring>
