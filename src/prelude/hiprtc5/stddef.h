// <stddef.h> for ROCm 5's hipRTC: what device code uses of it is built in (math functions,
// printf, size_t, memcpy); the system's header would pull in glibc's, which clash.
#pragma once
