// Ladder rung `naive_read`: see its row in src/variants.def and its maps in index_map.hpp.
#include "../ladder.cuh"

namespace xpose::detail {

status launch_naive_read(const void* in, void* out, const matrix_desc& d, const launch_options& l,
                 cudaStream_t stream) {
  return launch_ladder<maps::pattern::naive_read>(in, out, d, l, stream);
}

}  // namespace xpose::detail
