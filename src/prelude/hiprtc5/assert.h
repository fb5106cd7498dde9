// <assert.h> for ROCm 5's hipRTC: as <cassert>.
#pragma once
#include "cassert"
