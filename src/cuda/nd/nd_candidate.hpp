// Internal run-time choice of the permute_nd kernel, for same-run A/B measurements
// (`xpose-bench ttc --ab`) and the GPU tests that run every candidate. Not public API:
// the library's default is nd_kernel_default (policy_nd.hpp).
#pragma once

#include "xpose/plan.hpp"
#include "policy_nd.hpp"

namespace xpose::detail {

/// Process-wide; applies to launches issued after the call (relaxed atomic).
void set_nd_candidate(nd_kernel k) noexcept;
nd_kernel nd_candidate() noexcept;

/// The kernel a permute_nd plan runs under the current candidate with these pointers
/// (the candidate, or policy where the candidate cannot move the shape).
nd_kernel nd_kernel_for(const plan& p, const void* in, const void* out) noexcept;

}  // namespace xpose::detail
