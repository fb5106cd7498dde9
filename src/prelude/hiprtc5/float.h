// <float.h> for ROCm 5's hipRTC: as <cfloat>.
#pragma once
#include "cfloat"
