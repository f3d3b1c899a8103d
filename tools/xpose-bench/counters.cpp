// xpose-bench --counters: re-runs xpose-bench itself for one variant (--reps 1
// --warmup 0) under Nsight Compute and reads back the counters the access model
// predicts. Assumes ncu on PATH and permission to read the GPU's counters; either
// missing is reported, never fatal.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model_columns.hpp"

namespace xbench {
namespace {

// The four counters compared with the access model (docs/MODEL.md) ...
const char* const compared_metrics =
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
// ... and the requests and wavefronts that turn them into per-request ratios and ways.
const char* const ratio_metrics =
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";

std::string find_on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + exe;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// One CSV line of ncu's export: quoted fields, commas inside quotes (thousands separators).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (ch != '\r') cur += ch;
  }
  out.push_back(cur);
  return out;
}

struct launch_metrics {
  std::string kernel;
  std::map<std::string, double> values;
};

// The last profiled launch in ncu's CSV (the variant's timed run: the child runs copy
// first, then the variant, each checked once and timed once).
bool last_launch(const std::string& text, launch_metrics& out) {
  std::istringstream lines(text);
  std::vector<std::string> head;
  long long last_id = -1;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("\"ID\",", 0) == 0) {
      head = csv_fields(line);
      continue;
    }
    if (head.empty() || line.empty() || line[0] != '"') continue;
    const auto f = csv_fields(line);
    std::map<std::string, std::string> cell;
    for (size_t i = 0; i < f.size() && i < head.size(); ++i) cell[head[i]] = f[i];
    std::string value = cell["Metric Value"];
    value.erase(std::remove(value.begin(), value.end(), ','), value.end());
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') continue;  // "n/a" and the like
    const long long id = std::atoll(cell["ID"].c_str());
    if (id > last_id) {
      last_id = id;
      out = launch_metrics{cell["Kernel Name"], {}};
    }
    if (id == last_id) out.values[cell["Metric Name"]] = v;
  }
  return last_id >= 0;
}

// The first line of ncu's output that explains a failure, for the report.
std::string first_error_line(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("ERR") != std::string::npos || line.find("rror") != std::string::npos) return line;
  return "";
}

// Runs ncu on the child; false with `error` set when no launch came back.
bool profile(const std::string& ncu, const std::string& self, const row& r, const options& o, const char* metrics,
             bool ladder, launch_metrics& got, std::string& error) {
  char tmpl[] = "/tmp/xpose-ncu-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) {
    error = "cannot create a temporary file";
    return false;
  }
  ::close(fd);
  const std::string log = tmpl, out = log + ".out";
  // The ladder's kernels are all ladder_kernel<T, pattern>: the filter leaves out the
  // driver's and the harness's other work; the variant is the last of them.
  const std::string cmd = "LC_ALL=C " + shell_quote(ncu) + " --clock-control none --print-units base --csv" +
                          " --log-file " + shell_quote(log) + " --metrics " + metrics +
                          (ladder ? " -k regex:ladder_kernel" : "") + " " + shell_quote(self) +
                          " --variants " + r.variant + " --size " + std::to_string(r.spec.rows) + "x" +
                          std::to_string(r.spec.cols) + " --batch " + std::to_string(r.spec.batch) + " --dtype " +
                          r.spec.dtype.name + " --block " + std::to_string(o.block.block_x) + "x" +
                          std::to_string(o.block.block_y) + " --device " + std::to_string(o.device) +
                          " --reps 1 --warmup 0 --format csv > " + shell_quote(out) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string text = slurp(log) + "\n" + slurp(out);
  std::remove(log.c_str());
  std::remove(out.c_str());
  if (last_launch(text, got)) return true;
  error = first_error_line(text);
  if (error.empty()) error = "no kernel profiled (ncu exit status " + std::to_string(rc) + ")";
  return false;
}

}  // namespace

void add_counters(std::vector<row>& rows, const options& o, run_meta& meta) {
  const std::string ncu = find_on_path("ncu");
  if (ncu.empty()) {
    std::fprintf(stderr, "xpose-bench: ncu not found on PATH: --counters skipped\n");
    meta.warnings.push_back("ncu not found on PATH: no measured counters");
    return;
  }
  const std::string self = self_exe();
  // memcpy is the driver's copy, not a kernel of ours; a failed variant is not profiled.
  auto profiled = [](const row& r) {
    const xpose::variant_info* v = xpose::find_variant(r.variant);
    return r.exact && v != nullptr && v->kind != xpose::variant_kind::reference;
  };
  const size_t todo = static_cast<size_t>(std::count_if(rows.begin(), rows.end(), profiled));
  size_t done = 0;
  for (row& r : rows) {
    if (!profiled(r)) continue;
    const xpose::variant_info* v = xpose::find_variant(r.variant);
    std::fprintf(stderr, "xpose-bench: ncu %s %s (%zu/%zu)\n", r.variant.c_str(), r.spec.label().c_str(), ++done,
                 todo);
    launch_metrics got;
    std::string error;
    const std::string both = std::string(compared_metrics) + "," + ratio_metrics;
    // Retry with the compared counters alone should a ratio metric be unknown to this ncu.
    if (!profile(ncu, self, r, o, both.c_str(), v->pattern >= 0, got, error) &&
        !profile(ncu, self, r, o, compared_metrics, v->pattern >= 0, got, error)) {
      r.extra["ncu_error"] = error;
      if (error.find("ERR_NVGPUCTRPERM") != std::string::npos) {
        meta.warnings.push_back("ncu: no permission to read GPU counters (ERR_NVGPUCTRPERM): --counters stopped");
        return;
      }
      continue;
    }
    auto val = [&](const char* m) { return got.values.count(m) ? got.values[m] : -1.0; };
    auto put_count = [&](const char* key, const char* metric) {
      if (val(metric) >= 0) r.extra[key] = static_cast<long long>(val(metric));
    };
    r.extra["ncu_kernel"] = got.kernel;
    put_count("ncu_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    put_count("ncu_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    put_count("ncu_smem_ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    put_count("ncu_smem_st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
    const double ld_req = val("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    const double st_req = val("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    if (ld_req > 0) r.extra["ncu_ld_sectors_per_request"] = val("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") / ld_req;
    if (st_req > 0) r.extra["ncu_st_sectors_per_request"] = val("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum") / st_req;
    // ways = wavefronts / conflict-free wavefronts = wavefronts / (wavefronts - conflicts)
    for (const char* side : {"ld", "st"}) {
      const std::string s = side;
      const double wf = val(("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + s + ".sum").c_str());
      const double bc = val(("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + s + ".sum").c_str());
      if (wf > 0 && bc >= 0 && wf > bc) r.extra["ncu_smem_" + s + "_ways"] = wf / (wf - bc);
    }
  }
  meta.notice += (meta.notice.empty() ? "" : "\n") + std::string("counters: ") + ncu +
                 " --clock-control none, one launch per variant (--reps 1 --warmup 0)";
}

}  // namespace xbench
