// <float.h> for NVRTC: the C++ header of the same names (see <cfloat>).
#pragma once
#include <cfloat>
