// xpose-bench --model: the access model's predictions (include/xpose/model.hpp) as
// columns of the benchmark rows, the predictions-only run without a GPU, and the
// prediction-vs-ncu comparison table printed after the main one with --counters.
#include <xpose/model.hpp>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iterator>
#include <sstream>

#include "model_columns.hpp"

namespace xbench {
namespace {

// Fields the main table leaves out: the whole-launch totals and the counters (shown
// by counters_table) and the reason a row has no model (said by the notice).
const char* const json_only_keys[] = {"pred_ld_sectors", "pred_st_sectors", "pred_smem_ld_conflicts",
                                      "pred_smem_st_conflicts", "model"};

bool json_only(const std::string& key) {
  if (key.rfind("ncu_", 0) == 0) return true;
  for (const char* k : json_only_keys)
    if (key == k) return true;
  return false;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

void add_model_columns(std::vector<row>& rows, const options& o, run_meta& meta) {
  std::vector<std::string> no_model, misaligned;
  for (row& r : rows) {
    const xpose::variant_info* v = xpose::find_variant(r.variant);
    if (v == nullptr || v->pattern < 0) {
      r.extra["model"] = "none: no ladder index maps";
      if (std::find(no_model.begin(), no_model.end(), r.variant) == no_model.end()) no_model.push_back(r.variant);
      continue;
    }
    const case_spec& c = r.spec;
    // The model evaluates one matrix; the others of a batch cost the same only when
    // each starts on a 32-byte boundary, as the first does (packed batches here).
    if (c.batch > 1 && (c.rows * c.cols * c.dtype.bytes) % 32 != 0) {
      r.extra["model"] = "none: the batch's matrices do not all start 32-byte aligned";
      misaligned.push_back(r.variant + " " + c.label());
      continue;
    }
    xpose::model::config cfg;
    cfg.pattern = v->pattern;
    cfg.elem_size = c.dtype.bytes;
    cfg.block_y = o.block.block_y;
    cfg.rows = c.rows;
    cfg.cols = c.cols;
    xpose::model::prediction p;
    if (const xpose::status s = xpose::model::predict(cfg, p); !s) {
      meta.warnings.push_back("model: " + r.variant + " " + c.label() + ": " + s.message());
      continue;
    }
    r.extra["pred_ld_sectors_per_request"] = p.global_load.sectors_per_request();
    r.extra["pred_st_sectors_per_request"] = p.global_store.sectors_per_request();
    if (p.staged) {
      r.extra["pred_smem_st_ways"] = p.smem_store.ways();
      r.extra["pred_smem_ld_ways"] = p.smem_load.ways();
    }
    r.extra["pred_ld_sectors"] = p.global_load.sectors * c.batch;
    r.extra["pred_st_sectors"] = p.global_store.sectors * c.batch;
    r.extra["pred_smem_ld_conflicts"] = p.smem_load.bank_conflicts() * c.batch;
    r.extra["pred_smem_st_conflicts"] = p.smem_store.bank_conflicts() * c.batch;
  }
  std::string note =
      "model (docs/MODEL.md): pred_*_sectors_per_request = global 32-byte sectors per warp instruction; "
      "pred_smem_*_ways = shared wavefronts / conflict-free wavefronts (1 = conflict-free)";
  if (!no_model.empty()) note += "; no model for " + join(no_model) + " (no ladder index maps)";
  if (!misaligned.empty()) note += "; no model for batches not 32-byte aligned: " + join(misaligned);
  meta.notice += (meta.notice.empty() ? "" : "\n") + note;
}

std::vector<row> model_only_rows(const options& o, const std::string& why_no_gpu, run_meta& meta) {
  meta.backend = "model";
  meta.device = "none (" + why_no_gpu + "): predictions only";
  std::vector<const xpose::variant_info*> list;
  if (o.variants.empty()) {
    for (const auto& v : xpose::variants())
      list.push_back(&v);  // run_gpu's default list: every registered variant
  } else {
    for (const auto& n : o.variants) list.push_back(xpose::find_variant(n));
  }
  std::vector<row> rows;
  for (const case_spec& c : o.cases)
    for (const xpose::variant_info* v : list) {
      row r;
      r.variant = v->name;
      r.backend = "model";
      r.spec = c;
      r.block = v->uses_block_shape ? std::to_string(o.block.block_x) + "x" + std::to_string(o.block.block_y) : "-";
      r.check = "not run (no GPU)";
      rows.push_back(r);
    }
  add_model_columns(rows, o, meta);
  if (o.counters) meta.warnings.push_back("--counters needs a GPU: predictions only");
  return rows;
}

std::vector<row> table_view(const std::vector<row>& rows, const std::string& format) {
  if (format != "table" && format != "md") return rows;
  std::vector<row> out = rows;
  for (row& r : out) {
    json kept = json::object();
    for (auto it = r.extra.begin(); it != r.extra.end(); ++it)
      if (!json_only(it.key())) kept[it.key()] = it.value();
    r.extra = kept;
  }
  return out;
}

std::string counters_table(const std::vector<row>& rows, const std::string& format) {
  if (format != "table" && format != "md") return "";
  const bool md = format == "md";
  const char* cols[] = {"size",          "variant",       "block",         "ld sectors pred",   "ld ncu",
                        "st sectors pred", "st ncu",      "smem ld confl pred", "smem ld ncu", "ld confl ncu/pred",
                        "smem st confl pred", "smem st ncu"};
  auto num = [](const json& x, const char* k) -> std::string {
    if (!x.contains(k)) return "-";
    const json& v = x[k];
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_number()) {
      char b[32];
      std::snprintf(b, sizeof b, "%.0f", v.get<double>());
      return b;
    }
    return v.is_string() ? v.get<std::string>() : "-";
  };
  std::vector<std::vector<std::string>> body;
  std::vector<std::string> errors;
  for (const row& r : rows) {
    if (r.extra.contains("ncu_error")) {
      errors.push_back(r.variant + " " + r.spec.label() + ": " + r.extra["ncu_error"].get<std::string>());
      continue;
    }
    if (!r.extra.contains("ncu_ld_sectors")) continue;
    std::string ratio = "-";
    if (r.extra.contains("ncu_smem_ld_conflicts") && r.extra.contains("pred_smem_ld_conflicts")) {
      const double pred = r.extra["pred_smem_ld_conflicts"].get<double>();
      const double meas = r.extra["ncu_smem_ld_conflicts"].get<double>();
      char b[32];
      std::snprintf(b, sizeof b, "%.4f", meas / pred);
      if (pred > 0) ratio = b;
    }
    std::vector<std::string> line = {r.spec.label(), r.variant, r.block};
    for (const char* k : {"pred_ld_sectors", "ncu_ld_sectors", "pred_st_sectors", "ncu_st_sectors",
                          "pred_smem_ld_conflicts", "ncu_smem_ld_conflicts"})
      line.push_back(num(r.extra, k));
    line.push_back(ratio);
    for (const char* k : {"pred_smem_st_conflicts", "ncu_smem_st_conflicts"}) line.push_back(num(r.extra, k));
    body.push_back(line);
  }
  std::ostringstream s;
  s << "\n" << (md ? "### " : "== ") << "access model vs Nsight Compute (whole launch: sectors, bank conflicts)"
    << (md ? "\n\n" : " ==\n");
  std::string tail;
  for (const auto& e : errors) tail += "ncu failed: " + e + "\n";
  if (body.empty()) return s.str() + "(no variant was measured with ncu)\n" + tail;
  const size_t n = std::size(cols);
  std::vector<size_t> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = std::string(cols[i]).size();
  for (const auto& b : body)
    for (size_t i = 0; i < b.size() && i < n; ++i) w[i] = std::max(w[i], b[i].size());
  auto put = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (md) s << "| ";
      s << (i <= 2 ? std::left : std::right) << std::setw(static_cast<int>(i < n ? w[i] : 0)) << cells[i]
        << (md ? " " : "  ");
    }
    s << (md ? "|\n" : "\n");
  };
  put(std::vector<std::string>(std::begin(cols), std::end(cols)));
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (md) s << "|" << std::string(w[i] + 2, '-') << (i + 1 == n ? "|\n" : "");
    total += w[i] + 2;
  }
  if (!md) s << std::string(total, '-') << "\n";
  for (const auto& b : body) put(b);
  return s.str() + tail;
}

}  // namespace xbench
