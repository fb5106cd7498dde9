// CUDA's vector types and dim3 on the host backend, with CUDA's sizes and alignments (float4 is
// 16-byte aligned, float3 is 12 bytes with 4-byte alignment), so that a kernel's reinterpret_cast
// loads see the same layout as on the GPU. Built in under NVRTC and nvcc; included by hk_host.h.
#pragma once

#define HK_HOST_VEC1(HkT, HkN, HkA) \
  struct __attribute__((aligned(HkA))) HkN { HkT x; }; \
  inline HkN make_##HkN(HkT x) { return HkN{x}; }
#define HK_HOST_VEC2(HkT, HkN, HkA) \
  struct __attribute__((aligned(HkA))) HkN { HkT x, y; }; \
  inline HkN make_##HkN(HkT x, HkT y) { return HkN{x, y}; }
#define HK_HOST_VEC3(HkT, HkN) \
  struct HkN { HkT x, y, z; }; \
  inline HkN make_##HkN(HkT x, HkT y, HkT z) { return HkN{x, y, z}; }
#define HK_HOST_VEC4(HkT, HkN, HkA) \
  struct __attribute__((aligned(HkA))) HkN { HkT x, y, z, w; }; \
  inline HkN make_##HkN(HkT x, HkT y, HkT z, HkT w) { return HkN{x, y, z, w}; }

HK_HOST_VEC1(signed char, char1, 1)
HK_HOST_VEC2(signed char, char2, 2)
HK_HOST_VEC3(signed char, char3)
HK_HOST_VEC4(signed char, char4, 4)
HK_HOST_VEC1(unsigned char, uchar1, 1)
HK_HOST_VEC2(unsigned char, uchar2, 2)
HK_HOST_VEC3(unsigned char, uchar3)
HK_HOST_VEC4(unsigned char, uchar4, 4)
HK_HOST_VEC1(short, short1, 2)
HK_HOST_VEC2(short, short2, 4)
HK_HOST_VEC3(short, short3)
HK_HOST_VEC4(short, short4, 8)
HK_HOST_VEC1(unsigned short, ushort1, 2)
HK_HOST_VEC2(unsigned short, ushort2, 4)
HK_HOST_VEC3(unsigned short, ushort3)
HK_HOST_VEC4(unsigned short, ushort4, 8)
HK_HOST_VEC1(int, int1, 4)
HK_HOST_VEC2(int, int2, 8)
HK_HOST_VEC3(int, int3)
HK_HOST_VEC4(int, int4, 16)
HK_HOST_VEC1(unsigned int, uint1, 4)
HK_HOST_VEC2(unsigned int, uint2, 8)
HK_HOST_VEC3(unsigned int, uint3)
HK_HOST_VEC4(unsigned int, uint4, 16)
HK_HOST_VEC1(long, long1, 8)
HK_HOST_VEC2(long, long2, 16)
HK_HOST_VEC3(long, long3)
HK_HOST_VEC4(long, long4, 16)
HK_HOST_VEC1(unsigned long, ulong1, 8)
HK_HOST_VEC2(unsigned long, ulong2, 16)
HK_HOST_VEC3(unsigned long, ulong3)
HK_HOST_VEC4(unsigned long, ulong4, 16)
HK_HOST_VEC1(long long, longlong1, 8)
HK_HOST_VEC2(long long, longlong2, 16)
HK_HOST_VEC3(long long, longlong3)
HK_HOST_VEC4(long long, longlong4, 16)
HK_HOST_VEC1(unsigned long long, ulonglong1, 8)
HK_HOST_VEC2(unsigned long long, ulonglong2, 16)
HK_HOST_VEC3(unsigned long long, ulonglong3)
HK_HOST_VEC4(unsigned long long, ulonglong4, 16)
HK_HOST_VEC1(float, float1, 4)
HK_HOST_VEC2(float, float2, 8)
HK_HOST_VEC3(float, float3)
HK_HOST_VEC4(float, float4, 16)
HK_HOST_VEC1(double, double1, 8)
HK_HOST_VEC2(double, double2, 16)
HK_HOST_VEC3(double, double3)
HK_HOST_VEC4(double, double4, 16)

#undef HK_HOST_VEC1
#undef HK_HOST_VEC2
#undef HK_HOST_VEC3
#undef HK_HOST_VEC4

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 as CUDA lays it out");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 as CUDA lays it out");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2 as CUDA lays it out");

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  dim3(const struct hk_host_dim3& v) : x(v.x), y(v.y), z(v.z) {}  // blockDim, gridDim
};
