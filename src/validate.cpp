// Argument validation shared by every entry point. Runs before any memory is
// touched, so a rejected call leaves the output as it was.
#include <cstdint>

#include "core/core.hpp"
#include "internal.hpp"

namespace xpose {
namespace detail {
namespace {

bool mul_ok(index_t a, index_t b, index_t* r) { return !__builtin_mul_overflow(a, b, r); }
bool add_ok(index_t a, index_t b, index_t* r) { return !__builtin_add_overflow(a, b, r); }

// Elements spanned by `batch` matrices of `rows` rows of length `len`, pitch `ld`,
// batch stride `stride`: (batch-1)*stride + (rows-1)*ld + len. False on overflow.
bool extent(index_t batch, index_t stride, index_t rows, index_t ld, index_t len, index_t* out) {
  index_t a = 0, b = 0, s = 0;
  if (!mul_ok(batch - 1, stride, &a) || !mul_ok(rows - 1, ld, &b)) return false;
  return add_ok(a, b, &s) && add_ok(s, len, out);
}

// A pitch (leading dimension or batch stride) in bytes beyond 2^56 steps past any
// 64-bit address space in use (57-bit virtual addresses) and leaves the backends,
// which scale byte pitches by small tile factors in 64 bits, no headroom. Even an
// unused one (ld_in with one row) is rejected: it is never a real layout.
constexpr index_t max_pitch_bytes = index_t{1} << 56;

bool pitch_ok(index_t elems, int es) { return elems <= max_pitch_bytes / es; }

// packed() derived `stride` as rows * ld; a stride still equal to that value after
// rows or ld changed was not updated with them.
bool stale(index_t stride, index_t derived, index_t rows, index_t ld) {
  index_t now = 0;
  return derived >= 0 && stride == derived && (!mul_ok(rows, ld, &now) || now != derived);
}

}  // namespace

index_t in_extent(const matrix_desc& d) noexcept {
  return (d.batch - 1) * d.stride_in + (d.rows - 1) * d.ld_in + d.cols;
}
index_t out_extent(const matrix_desc& d) noexcept {
  return (d.batch - 1) * d.stride_out + (d.cols - 1) * d.ld_out + d.rows;
}

status validate_desc(const matrix_desc& d, bool copy_shaped) noexcept {
  using sc = status_code;
  const int es = d.elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
    return status::make(sc::unsupported_elem_size,
                        "element size %d bytes is not supported (use 1, 2, 4, 8 or 16)", es);
  if (d.rows < 0 || d.cols < 0 || d.batch < 0)
    return status::make(sc::negative_size, "negative size: rows=%lld cols=%lld batch=%lld",
                        (long long)d.rows, (long long)d.cols, (long long)d.batch);
  if (d.ld_in < 0 || d.ld_out < 0 || d.stride_in < 0 || d.stride_out < 0)
    return status::make(sc::negative_size,
                        "negative leading dimension or stride: ld_in=%lld ld_out=%lld "
                        "stride_in=%lld stride_out=%lld",
                        (long long)d.ld_in, (long long)d.ld_out, (long long)d.stride_in,
                        (long long)d.stride_out);
  if (empty(d)) return {};  // a zero-sized matrix is a valid no-op
  if (!pitch_ok(d.ld_in, es) || !pitch_ok(d.stride_in, es) ||
      (!copy_shaped && (!pitch_ok(d.ld_out, es) || !pitch_ok(d.stride_out, es))))
    return status::make(sc::size_overflow,
                        "a leading dimension or batch stride exceeds 2^56 bytes: ld_in=%lld ld_out=%lld "
                        "stride_in=%lld stride_out=%lld (x %d bytes)",
                        (long long)d.ld_in, (long long)d.ld_out, (long long)d.stride_in,
                        (long long)d.stride_out, es);
  if (d.batch > 1 && (stale(d.stride_in, d.derived_stride_in, d.rows, d.ld_in) ||
                      (!copy_shaped && stale(d.stride_out, d.derived_stride_out, d.cols, d.ld_out))))
    return status::make(sc::invalid_argument,
                        "stale batch stride: packed() set stride_in=%lld stride_out=%lld, but rows, cols or a "
                        "leading dimension changed since (ld_in=%lld ld_out=%lld): set the strides too",
                        (long long)d.stride_in, (long long)d.stride_out, (long long)d.ld_in,
                        (long long)d.ld_out);
  index_t n = 0;
  if (!mul_ok(d.rows, d.cols, &n) || !mul_ok(n, d.batch, &n) || !mul_ok(n, es, &n))
    return status::make(sc::size_overflow, "size overflows 64 bits: %lld x %lld x %lld x %d bytes",
                        (long long)d.batch, (long long)d.rows, (long long)d.cols, es);
  if (d.ld_in < d.cols)
    return status::make(sc::bad_leading_dim, "ld_in (%lld) is smaller than cols (%lld)",
                        (long long)d.ld_in, (long long)d.cols);
  if (!copy_shaped && d.ld_out < d.rows)
    return status::make(sc::bad_leading_dim, "ld_out (%lld) is smaller than rows (%lld)",
                        (long long)d.ld_out, (long long)d.rows);
  index_t ext_in = 0, ext_out = 0, bytes_in = 0, bytes_out = 0;
  const bool in_ok = extent(d.batch, d.stride_in, d.rows, d.ld_in, d.cols, &ext_in);
  const bool out_ok = copy_shaped ? in_ok : extent(d.batch, d.stride_out, d.cols, d.ld_out, d.rows, &ext_out);
  if (copy_shaped) ext_out = ext_in;
  if (!in_ok || !out_ok || !mul_ok(ext_in, es, &bytes_in) || !mul_ok(ext_out, es, &bytes_out))
    return status::make(sc::size_overflow, "the extent of input or output overflows 64 bits");
  if (!copy_shaped && d.batch > 1) {
    const index_t one = (d.cols - 1) * d.ld_out + d.rows;  // no overflow: bounded by ext_out
    if (d.stride_out < one)
      return status::make(sc::bad_batch_stride,
                          "stride_out (%lld) is smaller than one output matrix (%lld elements): "
                          "batches would overlap",
                          (long long)d.stride_out, (long long)one);
  }
  return {};
}

status validate(const void* in, const void* out, const matrix_desc& d, bool copy_shaped, int align) noexcept {
  if (status s = validate_desc(d, copy_shaped); !s.ok() || empty(d)) return s;
  const int es = d.elem_size;
  // No overflow: validate_desc bounded both extents in bytes.
  const index_t bytes_in = in_extent(d) * es;
  const index_t bytes_out = copy_shaped ? bytes_in : out_extent(d) * es;
  return check_pointers(in, bytes_in, out, bytes_out, es, align);
}

}  // namespace detail

status validate(const void* in, const void* out, const matrix_desc& desc) noexcept {
  return detail::validate(in, out, desc, false, 0);
}

}  // namespace xpose
