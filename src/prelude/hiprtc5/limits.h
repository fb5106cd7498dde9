// <limits.h> for ROCm 5's hipRTC: as <climits>.
#pragma once
#include "climits"
