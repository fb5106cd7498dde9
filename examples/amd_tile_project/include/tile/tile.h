// The tile layer: header-only, included by kernels as <tile/tile.h> (the manifest's include_dirs
// names this folder's parent).
#pragma once

#include "accumulator.h"
#include "concepts.h"
#include "mma.h"
#include "shared_tile.h"
