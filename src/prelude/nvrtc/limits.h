// <limits.h> for NVRTC: the C++ header of the same names (see <climits>).
#pragma once
#include <climits>
