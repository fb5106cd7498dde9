// The unsigned bit pattern cub's radix sort orders a key by: unsigned integers as they are, signed
// ones with the sign bit flipped, floating-point ones (float, double and the host's __half and
// __nv_bfloat16) with the sign bit flipped when positive and every bit when negative, -0.0 taken
// as +0.0 (cub's documented special case). A descending sort orders by the complement.
#pragma once
#include <type_traits>

namespace cub {
namespace hk_detail {

template <class K, class = void> struct HasHalfBits : std::false_type {};
template <class K> struct HasHalfBits<K, decltype(void(K().__x))> : std::true_type {};

template <int Bytes> struct UnsignedOf;
template <> struct UnsignedOf<1> { using type = unsigned char; };
template <> struct UnsignedOf<2> { using type = unsigned short; };
template <> struct UnsignedOf<4> { using type = unsigned int; };
template <> struct UnsignedOf<8> { using type = unsigned long long; };

template <class K> unsigned long long radix_bits(const K& key) {
  static_assert(std::is_arithmetic<K>::value || HasHalfBits<K>::value,
                "hkcheck's host cub sorts the built-in numeric types, __half and __nv_bfloat16 (keys with a decomposer are not provided)");
  using U = typename UnsignedOf<sizeof(K)>::type;
  U u;
  memcpy(&u, &key, sizeof(K));
  const U sign = U(U(1) << (8 * sizeof(K) - 1));
  if (std::is_floating_point<K>::value || HasHalfBits<K>::value) {
    if (u == sign) u = 0;  // -0.0 sorts as +0.0
    u = (u & sign) ? U(~u) : U(u | sign);
  } else if (std::is_signed<K>::value) {
    u = U(u ^ sign);
  }
  return u;
}

}  // namespace hk_detail
}  // namespace cub
