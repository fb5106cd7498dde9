// <stdlib.h> for NVRTC: the C++ header of the same names (see <cstdlib>).
#pragma once
#include <cstdlib>
