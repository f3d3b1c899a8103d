// Layout arithmetic, once: count, span, emptiness, overflow checks, the
// distinct-elements test and byte-range overlap. Everything else asks here.
#include "xpose/layout.hpp"

#include <algorithm>
#include <cstdint>

namespace xpose {
namespace {

bool mul_ok(index_t a, index_t b, index_t* r) { return !__builtin_mul_overflow(a, b, r); }
bool add_ok(index_t a, index_t b, index_t* r) { return !__builtin_add_overflow(a, b, r); }

// count = prod extents, span = sum (extent-1)*stride + 1 (0 when empty); false on overflow.
// Assumes non-negative extents and strides and a rank in range.
bool measure(const layout& l, index_t* count, index_t* span) {
  index_t n = 1, s = 0;
  for (int k = 0; k < l.rank; ++k)
    if (l.extents[k] == 0) {
      *count = 0, *span = 0;
      return true;
    }
  for (int k = 0; k < l.rank; ++k) {
    index_t t = 0;
    if (!mul_ok(n, l.extents[k], &n) || !mul_ok(l.extents[k] - 1, l.strides[k], &t) || !add_ok(s, t, &s))
      return false;
  }
  *count = n;
  return add_ok(s, 1, span);
}

bool valid_elem_size(int e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

}  // namespace

layout layout::packed(int rank, const index_t* extents, int elem_size) noexcept {
  layout l;
  l.rank = rank < 0 ? 0 : rank > max_rank ? max_rank : rank;
  l.elem_size = elem_size;
  std::uint64_t s = 1;  // wrapping on purpose: check_layout rejects an overflowing size
  for (int k = l.rank - 1; k >= 0; --k) {
    l.extents[k] = extents[k];
    l.strides[k] = static_cast<index_t>(s);
    s *= static_cast<std::uint64_t>(extents[k]);
  }
  return l;
}

namespace {
// (batch, n1, n2) with strides (batch stride, ld, 1); the batch stride only matters for batch > 1.
layout batched_matrix(const matrix_desc& d, index_t n1, index_t n2, index_t ld, index_t batch_stride) {
  layout l;
  l.rank = 3;
  l.elem_size = d.elem_size;
  l.extents[0] = d.batch, l.extents[1] = n1, l.extents[2] = n2;
  l.strides[0] = d.batch > 1 ? batch_stride : 0, l.strides[1] = ld, l.strides[2] = 1;
  return l;
}
}  // namespace

layout layout::matrix_in(const matrix_desc& d) noexcept {
  return batched_matrix(d, d.rows, d.cols, d.ld_in, d.stride_in);
}

layout layout::matrix_out(const matrix_desc& d) noexcept {
  return batched_matrix(d, d.cols, d.rows, d.ld_out, d.stride_out);
}

index_t layout::count() const noexcept {
  index_t n = 0, s = 0;
  return measure(*this, &n, &s) ? n : 0;
}

bool layout::empty() const noexcept {
  for (int k = 0; k < rank; ++k)
    if (extents[k] == 0) return true;
  return false;
}

index_t layout::span() const noexcept {
  index_t n = 0, s = 0;
  return measure(*this, &n, &s) ? s : 0;
}

status check_layout(const layout& l, const char* which) noexcept {
  using sc = status_code;
  if (l.rank < 0 || l.rank > layout::max_rank)
    return status::make(sc::bad_rank, "%s rank %d is outside 0..%d", which, l.rank, layout::max_rank);
  if (!valid_elem_size(l.elem_size))
    return status::make(sc::unsupported_elem_size,
                        "%s element size %d bytes is not supported (use 1, 2, 4, 8 or 16)", which, l.elem_size);
  for (int k = 0; k < l.rank; ++k)
    if (l.extents[k] < 0 || l.strides[k] < 0)
      return status::make(sc::negative_size, "%s dimension %d: negative extent (%lld) or stride (%lld)", which, k,
                          (long long)l.extents[k], (long long)l.strides[k]);
  index_t n = 0, s = 0, b = 0;
  if (!measure(l, &n, &s) || !mul_ok(n, l.elem_size, &b) || !mul_ok(s, l.elem_size, &b))
    return status::make(sc::size_overflow, "%s size or extent in bytes overflows 64 bits", which);
  return {};
}

bool elements_distinct(const layout& l) noexcept {
  if (l.empty()) return true;
  int order[layout::max_rank];
  int m = 0;
  for (int k = 0; k < l.rank; ++k)
    if (l.extents[k] > 1) order[m++] = k;
  std::sort(order, order + m, [&](int a, int b) { return l.strides[a] < l.strides[b]; });
  index_t reach = 0;  // largest offset reachable by the dims seen so far
  for (int i = 0; i < m; ++i) {
    const int k = order[i];
    if (l.strides[k] <= reach) return false;
    reach += (l.extents[k] - 1) * l.strides[k];  // no overflow: bounded by a checked span
  }
  return true;
}

bool ranges_overlap(const void* a, index_t a_bytes, const void* b, index_t b_bytes) noexcept {
  if (a_bytes <= 0 || b_bytes <= 0) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + static_cast<std::uintptr_t>(b_bytes) && pb < pa + static_cast<std::uintptr_t>(a_bytes);
}

}  // namespace xpose
