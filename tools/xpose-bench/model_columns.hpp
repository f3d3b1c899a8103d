// xpose-bench --model and --counters: the access model's predictions beside the
// measured rows (model_columns.cpp), and Nsight Compute's measured counters beside
// the predictions (counters.cpp). JSON keys: pred_* and ncu_* in each row.
#pragma once

#include <string>
#include <vector>

#include "bench.hpp"

namespace xbench {

/// Adds the predicted columns to every row whose variant has ladder index maps:
/// pred_ld_sectors_per_request, pred_st_sectors_per_request, pred_smem_st_ways,
/// pred_smem_ld_ways (shared ones only for rungs that stage through shared memory),
/// and the whole-launch totals ncu is compared with (pred_ld_sectors, pred_st_sectors,
/// pred_smem_ld_conflicts, pred_smem_st_conflicts). Rows without maps get only
/// `model`: the reason there is no prediction.
void add_model_columns(std::vector<row>& rows, const options& o, run_meta& meta);

/// --model without a GPU: one unmeasured row per case and variant, predictions only.
std::vector<row> model_only_rows(const options& o, const std::string& why_no_gpu, run_meta& meta);

/// --counters: re-runs each measured variant under ncu and adds the ncu_* fields.
/// Without ncu on PATH it says so (notice and stderr) and leaves the rows alone.
void add_counters(std::vector<row>& rows, const options& o, run_meta& meta);

/// The rows as the table / md formats show them: the per-request predictions stay,
/// the whole-launch totals move to counters_table(). Other formats get every field.
std::vector<row> table_view(const std::vector<row>& rows, const std::string& format);

/// Prediction against measurement, one line per variant measured with --counters
/// ("" for json / csv, whose rows already carry both).
std::string counters_table(const std::vector<row>& rows, const std::string& format);

}  // namespace xbench
