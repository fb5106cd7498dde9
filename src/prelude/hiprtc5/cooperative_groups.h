// <cooperative_groups.h> for ROCm 5's hipRTC: the system's header clashes with the
// built-in ones, and this hipRTC has none of its own.
#pragma once
#error "cooperative groups need ROCm 6's hipRTC; ROCm 5's (Debian's libamdhip64 5.2) cannot compile them. Compile this kernel for gfx targets where ROCm 6 is installed"
