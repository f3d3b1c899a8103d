// The one element-size dispatch of the plan-centred core, and conjugation. A
// transpose moves bytes: element types are unsigned integers of the element's size.
#pragma once

#include <cstdint>
#include <type_traits>

#include "xpose/config.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

/// 16-byte element (c128, or a 16-byte chunk of smaller ones).
struct alignas(16) u128 {
  std::uint64_t lo, hi;
};

template <int E> struct uint_of;
template <> struct uint_of<1> { using type = std::uint8_t; };
template <> struct uint_of<2> { using type = std::uint16_t; };
template <> struct uint_of<4> { using type = std::uint32_t; };
template <> struct uint_of<8> { using type = std::uint64_t; };
template <> struct uint_of<16> { using type = u128; };

/// Flips the sign bit of the imaginary part: c64 (8 bytes, f32 pair, imaginary in
/// the high half) and c128 (16 bytes, f64 pair). Little-endian, as every supported target.
XPOSE_HD inline std::uint64_t conj(std::uint64_t v) { return v ^ (std::uint64_t{1} << 63); }
XPOSE_HD inline u128 conj(u128 v) { return {v.lo, v.hi ^ (std::uint64_t{1} << 63)}; }

/// f(std::integral_constant<int, E>{}) for E = elem_size in {1, 2, 4, 8, 16}.
template <class F>
decltype(auto) with_elem_size(int elem_size, F&& f) {
  switch (elem_size) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8: return f(std::integral_constant<int, 8>{});
    default: return f(std::integral_constant<int, 16>{});
  }
}

/// Moves one element, conjugating when Conj (only instantiated for 8 and 16 bytes).
template <int E, bool Conj>
XPOSE_HD inline typename uint_of<E>::type pass(typename uint_of<E>::type v) {
  if constexpr (Conj && (E == 8 || E == 16)) return conj(v);
  else return v;
}

}  // namespace xpose::detail
