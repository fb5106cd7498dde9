// <assert.h> for NVRTC (see <cassert>).
#pragma once
#include <cassert>
