// status: code names and message formatting (no allocation, never throws).
#include "xpose/status.hpp"

#include <cstdarg>
#include <cstdio>

namespace xpose {

const char* to_string(status_code code) noexcept {
  switch (code) {
    case status_code::ok: return "ok";
    case status_code::null_pointer: return "null_pointer";
    case status_code::negative_size: return "negative_size";
    case status_code::size_overflow: return "size_overflow";
    case status_code::bad_leading_dim: return "bad_leading_dim";
    case status_code::bad_batch_stride: return "bad_batch_stride";
    case status_code::overlap: return "overlap";
    case status_code::unsupported_elem_size: return "unsupported_elem_size";
    case status_code::misaligned: return "misaligned";
    case status_code::not_device_memory: return "not_device_memory";
    case status_code::no_device: return "no_device";
    case status_code::cuda_error: return "cuda_error";
    case status_code::unknown_variant: return "unknown_variant";
    case status_code::unsupported_variant: return "unsupported_variant";
    case status_code::invalid_argument: return "invalid_argument";
    case status_code::size_mismatch: return "size_mismatch";
    case status_code::comm_size_mismatch: return "comm_size_mismatch";
    case status_code::workspace_too_small: return "workspace_too_small";
    case status_code::comm_error: return "comm_error";
    case status_code::bad_rank: return "bad_rank";
    case status_code::bad_axes: return "bad_axes";
    case status_code::shape_mismatch: return "shape_mismatch";
    case status_code::overlapping_output: return "overlapping_output";
    case status_code::not_packed: return "not_packed";
  }
  return "unknown_status";
}

status status::make(status_code code, const char* fmt, ...) noexcept {
  status s;
  s.code_ = code;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(s.message_, sizeof(s.message_), fmt, args);
  va_end(args);
  return s;
}

}  // namespace xpose
