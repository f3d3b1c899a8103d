// Internal declarations of the plan-centred core, shared by the plan, the CPU
// executor and the CUDA dispatch.
#pragma once

#include "xpose/plan.hpp"
#include "xpose/xpose.hpp"

namespace xpose::detail {

/// The pointer checks of every entry, before any write: null, alignment (to the element,
/// or to `align` bytes when smaller and > 0: the host entries' host_align), address
/// wrap, overlap of [in, +in_bytes) and [out, +out_bytes).
status check_pointers(const void* in, index_t in_bytes, const void* out, index_t out_bytes, int elem_size,
                      int align) noexcept;

/// A plan's own fields, before execute trusts them: the algorithm in range and every
/// field what make_plan gives for the plan's own (normalised) layouts, so a plan edited
/// after make_plan is invalid_argument, never an out-of-range read.
status check_plan(const plan& p) noexcept;

/// check_plan, then check_pointers for the plan (nothing to check for an empty one).
/// Both backends' execute start here.
status check_plan_pointers(const plan& p, const void* in, void* out, int align = 0) noexcept;

/// The host run of a plan made here (make_plan's own result, not a caller's): pointer
/// checks with host_align, then the CPU executor; `threads` from check_host_options.
status run_plan_host(const plan& p, const void* in, void* out, int threads) noexcept;

/// The plan of a validated matrix_desc: (b, r, c) -> (b, c, r).
inline status plan_for(const matrix_desc& d, plan* p) noexcept {
  static constexpr int axes[3] = {0, 2, 1};
  return make_plan(layout::matrix_in(d), layout::matrix_out(d), axes, 3, {}, p);
}

/// CPU executor of a validated, non-empty plan (src/cpu/permute.cpp).
void execute_plan_cpu(const plan& p, const void* in, void* out, int threads) noexcept;

/// GPU run of a validated, non-empty plan on checked device pointers (execute's
/// dispatch after its checks). The in-place slab groups call it directly: their
/// strided batches interleave input and output matrices without sharing an element,
/// which execute's range check (one extent each) would refuse as an overlap.
status launch_plan(const plan& p, const void* in, void* out, cudaStream_t stream) noexcept;

/// GPU launchers of the N-d plans (src/cuda/nd/permute_nd.cu): validated,
/// non-empty plans, checked pointers, current device.
status launch_permute_nd(const plan& p, const void* in, void* out, cudaStream_t stream);
status launch_strided_copy(const plan& p, const void* in, void* out, cudaStream_t stream);

/// Position k of the output dimension that is the input's fastest (axes[k] == rank-1).
inline int input_fastest(const plan& p) noexcept {
  for (int k = 0; k < p.out.rank; ++k)
    if (p.axes[k] == p.out.rank - 1) return k;
  return p.out.rank - 1;
}

}  // namespace xpose::detail
