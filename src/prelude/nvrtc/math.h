// <math.h> for NVRTC: the C++ header of the same names (see <cmath>).
#pragma once
#include <cmath>
