// In-place transpose: argument checks and the workspace size query. Nothing here
// touches memory, so a rejected call leaves the data as it was.
#include <cstdint>

#include "inplace_blocks.hpp"
#include "inplace_internal.hpp"
#include "inplace_map.hpp"

namespace xpose {
namespace detail {
namespace {

using sc = status_code;

status check_desc(const matrix_desc& d) noexcept {
  const int es = d.elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
    return status::make(sc::unsupported_elem_size,
                        "element size %d bytes is not supported (use 1, 2, 4, 8 or 16)", es);
  if (d.rows < 0 || d.cols < 0 || d.batch < 0 || d.ld_in < 0 || d.ld_out < 0 || d.stride_in < 0 ||
      d.stride_out < 0)
    return status::make(sc::negative_size, "negative size, leading dimension or stride");
  if (empty(d)) return {};
  index_t n = 0;
  if (__builtin_mul_overflow(d.rows, d.cols, &n) || __builtin_mul_overflow(n, d.batch, &n) ||
      __builtin_mul_overflow(n, static_cast<index_t>(es), &n))
    return status::make(sc::size_overflow, "size overflows 64 bits: %lld x %lld x %lld x %d bytes",
                        (long long)d.batch, (long long)d.rows, (long long)d.cols, es);
  const index_t one = d.rows * d.cols;
  if (d.ld_in != d.cols || d.ld_out != d.rows || (d.batch > 1 && (d.stride_in != one || d.stride_out != one)))
    return status::make(sc::not_packed,
                        "an in-place transpose needs a packed desc (ld_in == cols, ld_out == rows, "
                        "strides == rows*cols): got ld_in=%lld ld_out=%lld stride_in=%lld stride_out=%lld "
                        "for %lld x %lld",
                        (long long)d.ld_in, (long long)d.ld_out, (long long)d.stride_in,
                        (long long)d.stride_out, (long long)d.rows, (long long)d.cols);
  return {};
}

std::size_t workspace_bytes_for(const matrix_desc& d, bool device) noexcept {
  if (empty(d)) return 0;
  const bool rectangle = d.rows != d.cols && d.rows > 1 && d.cols > 1;
  // Batches of 4 or more rectangles on the device: a quarter of their matrices, which
  // go through it in groups (inplace.cu, run).
  if (device && d.batch >= 4 && rectangle)
    return static_cast<std::size_t>(d.batch / 4) * static_cast<std::size_t>(d.rows * d.cols * d.elem_size);
  const inplace::block_plan bp = inplace::make_block_plan(d.rows, d.cols, d.elem_size, device);
  if (bp.kind != inplace::block_kind::none)  // the device runs a batch of up to 3 at once
    return static_cast<std::size_t>(bp.workspace_elems()) * static_cast<std::size_t>(d.elem_size) *
           static_cast<std::size_t>(device ? d.batch : 1);
  if (rectangle)
    if (const inplace::split_plan sp = inplace::make_split_plan(d.rows, d.cols, d.elem_size, device); sp.r > 0)
      return static_cast<std::size_t>(sp.ws) * static_cast<std::size_t>(d.elem_size);
  const index_t lines = inplace::workspace_lines(d.rows, d.cols, device);
  const index_t longer = d.rows > d.cols ? d.rows : d.cols;
  return static_cast<std::size_t>(lines) * static_cast<std::size_t>(longer) * static_cast<std::size_t>(d.elem_size);
}

}  // namespace

status validate_inplace(const void* data, const matrix_desc& d, const void* ws, std::size_t ws_bytes,
                        bool device, std::size_t* need_out) noexcept {
  if (need_out != nullptr) *need_out = 0;
  if (status s = check_desc(d); !s.ok() || empty(d)) return s;
  const auto es = static_cast<std::uintptr_t>(d.elem_size);
  if (data == nullptr)
    return status::make(sc::null_pointer, "data pointer is null for a non-empty %lld x %lld matrix",
                        (long long)d.rows, (long long)d.cols);
  const auto pd = reinterpret_cast<std::uintptr_t>(data);
  if (pd % es != 0)
    return status::make(sc::misaligned, "data pointer %p is not aligned to its %d-byte elements", data,
                        d.elem_size);
  const auto bytes = static_cast<std::uintptr_t>(d.rows * d.cols * d.batch * d.elem_size);
  if (pd > UINTPTR_MAX - bytes) return status::make(sc::size_overflow, "the data wraps the address space");
  const std::size_t need = workspace_bytes_for(d, device);
  if (need == 0) return {};
  if (ws == nullptr)
    return status::make(sc::null_pointer, "workspace is null but a %lld x %lld in-place transpose needs %zu bytes",
                        (long long)d.rows, (long long)d.cols, need);
  if (ws_bytes < need)
    return status::make(sc::workspace_too_small,
                        "workspace of %zu bytes is smaller than the %zu bytes this transpose needs "
                        "(inplace_workspace_size)",
                        ws_bytes, need);
  const auto pw = reinterpret_cast<std::uintptr_t>(ws);
  if (pw % es != 0)
    return status::make(sc::misaligned, "workspace pointer %p is not aligned to %d-byte elements", ws,
                        d.elem_size);
  if (pw > UINTPTR_MAX - ws_bytes) return status::make(sc::size_overflow, "the workspace wraps the address space");
  if (pw < pd + bytes && pd < pw + ws_bytes)
    return status::make(sc::overlap, "workspace [%p, +%zu B) overlaps the data [%p, +%zu B)", ws, ws_bytes, data,
                        static_cast<std::size_t>(bytes));
  if (need_out != nullptr) *need_out = need;
  return {};
}

}  // namespace detail

status inplace_workspace_size(const matrix_desc& desc, bool device, std::size_t* bytes) noexcept {
  if (bytes == nullptr) return status::make(status_code::null_pointer, "bytes is null");
  if (status s = detail::check_desc(desc); !s.ok()) return s;
  *bytes = detail::workspace_bytes_for(desc, device);
  return {};
}

status transpose_inplace_host(void* data, const matrix_desc& desc, void* workspace, std::size_t workspace_bytes,
                              const host_options& options) noexcept {
  int threads = 0;
  if (status s = check_host_options(options, &threads); !s.ok()) return s;
  if (status s = detail::validate_inplace(data, desc, workspace, workspace_bytes, false);
      !s.ok() || detail::empty(desc))
    return s;
  detail::inplace_host(data, desc, workspace, workspace_bytes, threads);
  return {};
}

}  // namespace xpose
