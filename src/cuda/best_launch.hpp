// The launcher of the 2-D fast path `best` (variants/best.cu) taking a route: launch_best runs
// route_for's route; bench/best_bench --route forces a table row's route on a layout to measure
// it against the one the table takes.
#pragma once

#include <cuda_runtime.h>
#include <xpose/status.hpp>
#include <xpose/view.hpp>

#include "route_table.hpp"

namespace xpose::detail {

/// Launches route r (route_for's where r is null) for a validated, non-empty desc. A route the
/// table does not give for this layout may fail its launch (unsupported_variant) or write a wrong
/// result; the bench checks every output.
status launch_best_route(const void* in, void* out, const matrix_desc& d, const route* r, cudaStream_t stream);

}  // namespace xpose::detail
