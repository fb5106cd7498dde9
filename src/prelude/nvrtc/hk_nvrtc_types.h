// Names a CUDA file gets from the host's C library under nvcc but NVRTC does not know: glibc's
// <sys/types.h> short unsigned typedefs, which kernel libraries use in inline assembly.
#pragma once
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
