// The oracle: a plain-loop transpose sharing no code with the index maps or the
// fast backends. Every test compares against this. Assumes a validated desc.
#include <cstring>

#include "../internal.hpp"

namespace xpose::detail {

void reference_transpose(const void* in, void* out, const matrix_desc& d) noexcept {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const auto es = static_cast<std::size_t>(d.elem_size);
  for (index_t b = 0; b < d.batch; ++b)
    for (index_t r = 0; r < d.rows; ++r)
      for (index_t c = 0; c < d.cols; ++c) {
        const index_t from = b * d.stride_in + r * d.ld_in + c;
        const index_t to = b * d.stride_out + c * d.ld_out + r;
        std::memcpy(dst + static_cast<std::size_t>(to) * es, src + static_cast<std::size_t>(from) * es, es);
      }
}

}  // namespace xpose::detail
