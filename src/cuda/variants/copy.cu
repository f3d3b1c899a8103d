// Ladder rung `copy`: see its row in src/variants.def and its maps in index_map.hpp.
#include "../ladder.cuh"

namespace xpose::detail {

status launch_copy(const void* in, void* out, const matrix_desc& d, const launch_options& l,
                 cudaStream_t stream) {
  return launch_ladder<maps::pattern::copy>(in, out, d, l, stream);
}

}  // namespace xpose::detail
