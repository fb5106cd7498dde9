// <stdint.h> for ROCm 5's hipRTC: as <cstdint>.
#pragma once
#include "cstdint"
