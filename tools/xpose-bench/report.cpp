// Report side of xpose-bench: statistics, ratios, the sanity and expected-range
// checks, and the table / csv / md / json renderings.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "bench.hpp"
#include "cli.hpp"
#include "expected_ratios.inc"  // const char* expected_ratios_json (data/expected_ratios.json)

namespace xbench {

std::string case_spec::label() const {
  std::string s = std::to_string(rows) + "x" + std::to_string(cols);
  if (batch != 1) s = std::to_string(batch) + "x" + s;
  return s + " " + dtype.name;
}

void usage_error(const std::string& message) {
  std::fprintf(stderr, "xpose-bench: error: %s\n", one_line(message).c_str());
  std::exit(2);
}

int cpu_threads(int requested) {
  const int t = xpose::host_threads(requested);
  if (t <= 0)
    usage_error("--threads must be between 0 (all cores) and " + std::to_string(xpose::max_host_threads()) + " (got " +
                std::to_string(requested) + ")");
  // The OpenMP workers start now, before the buffers are allocated: under a memory
  // limit an allocation then fails as std::bad_alloc (exit 2), not as a thread that
  // libgomp cannot create later (it exits the process).
  int started = 0;
#pragma omp parallel num_threads(t)
  {
#pragma omp atomic
    ++started;
  }
  (void)started;
  return t;
}

void check_host_memory(long double bytes, const std::string& what) {
  long double avail = static_cast<long double>(::sysconf(_SC_AVPHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {  // MemAvailable counts reclaimable cache too
    char line[256];
    long long kib = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %lld kB", &kib) == 1) avail = static_cast<long double>(kib) * 1024;
    std::fclose(f);
  }
  if (bytes > avail)
    usage_error(what + " needs " + std::to_string(static_cast<long long>(bytes / 1e6)) + " MB of host memory; " +
                std::to_string(static_cast<long long>(avail / 1e6)) + " MB available");
}

namespace {
bool quiet_progress = false;
}
void set_quiet(bool quiet) { quiet_progress = quiet; }
bool quiet() { return quiet_progress; }
bool isatty_stderr() { return !quiet_progress && ::isatty(2) == 1; }
void progress(size_t i, size_t n, const std::string& what) {
  std::fprintf(stderr, "\r[%zu/%zu] %-40s", i + 1, n, what.c_str());
  std::fflush(stderr);
}
void progress_done() { std::fprintf(stderr, "\r%-60s\r", ""); }

void summarize(row& r) {
  std::vector<double> s = r.samples_ms;
  std::sort(s.begin(), s.end());
  if (s.empty()) return;
  r.ms_min = s.front();
  r.ms_max = s.back();
  r.ms_median = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  r.gbps = bytes_moved(r.spec) / (r.ms_median * 1e-3) / 1e9;
}

void fill_ratios(std::vector<row>& rows, const std::string& copy_name, const std::string& memcpy_name,
                 double peak_gbs) {
  double copy = 0, mc = 0;
  for (const row& r : rows) {
    if (!r.timed) continue;
    if (r.variant == copy_name) copy = r.gbps;
    if (r.variant == memcpy_name) mc = r.gbps;
  }
  for (row& r : rows) {
    if (!r.timed) continue;
    r.of_copy = copy > 0 ? r.gbps / copy : 0;
    r.of_memcpy = mc > 0 ? r.gbps / mc : 0;
    r.of_peak = peak_gbs > 0 ? r.gbps / peak_gbs : 0;
  }
}

void sanity_check(const std::vector<row>& rows, run_meta& meta) {
  // Per case and block: copy must beat naive and naive_read, else the harness is off.
  for (const row& c : rows) {
    if (c.variant != "copy" || !c.timed) continue;
    for (const row& r : rows)
      if ((r.variant == "naive" || r.variant == "naive_read") && r.timed && r.spec.label() == c.spec.label() &&
          r.block == c.block && r.gbps > c.gbps)
        meta.warnings.push_back("measurement is broken: copy (" + c.block + ", " + c.spec.label() +
                                ") is slower than " + r.variant);
  }
}

void apply_expected_ranges(std::vector<row>& rows, run_meta& meta) {
  const json data = json::parse(expected_ratios_json);
  const json* gpu = nullptr;
  for (const auto& g : data["gpus"])
    if (meta.device.find(g["match"].get<std::string>()) != std::string::npos) gpu = &g;
  if (gpu == nullptr) {
    meta.warnings.push_back("no expected ratio ranges recorded for '" + meta.device +
                            "' (data/expected_ratios.json): ratios not checked");
    return;
  }
  int inside = 0, outside = 0;
  for (row& r : rows) {
    if (!r.timed) continue;
    for (const auto& e : (*gpu)["ranges"]) {
      if (e["variant"] != r.variant || e["block"] != r.block || e["dtype"] != r.spec.dtype.name) continue;
      if (e.contains("rows") && (e["rows"] != r.spec.rows || e["cols"] != r.spec.cols)) continue;
      const std::string of = e["of"];
      const double v = of == "peak" ? r.of_peak : of == "memcpy" ? r.of_memcpy : r.of_copy;
      const double lo = e["lo"], hi = e["hi"];
      const bool ok = v >= lo && v <= hi;
      (ok ? inside : outside)++;
      std::ostringstream s;
      s << std::fixed << std::setprecision(2) << (ok ? "in " : "OUTSIDE ") << "[" << lo << ", " << hi << "] of "
        << of;
      r.range = s.str();
    }
  }
  std::ostringstream s;
  s << "expected ratio ranges for " << (*gpu)["match"].get<std::string>() << " (" << (*gpu)["source"].get<std::string>()
    << "): " << inside << " inside, " << outside << " outside";
  meta.notice += (meta.notice.empty() ? "" : "\n") + s.str();
}

json to_json(const std::vector<row>& rows, const run_meta& m) {
  json j;
  j["meta"] = {{"backend", m.backend}, {"device", m.device},   {"compute_capability", m.cc},
               {"driver", m.driver},   {"cuda_runtime", m.runtime}, {"l2_bytes", m.l2_bytes},
               {"peak_gbs", m.peak_gbs}, {"peak_source", m.peak_source}, {"threads", m.threads},
               {"date", m.date},       {"command", m.command},  {"cache", m.cache_note},
               {"gbps_unit", "GB/s = 1e9 bytes/s, counting bytes read + bytes written"},
               {"notice", m.notice}, {"columns", m.legend}, {"warnings", m.warnings}};
  j["rows"] = json::array();
  for (const row& r : rows) {
    json x = {{"variant", r.variant},     {"backend", r.backend},       {"rows", r.spec.rows},
              {"cols", r.spec.cols},      {"batch", r.spec.batch},      {"dtype", r.spec.dtype.name},
              {"elem_bytes", r.spec.dtype.bytes}, {"block", r.block},   {"ms_median", r.ms_median},
              {"ms_min", r.ms_min},       {"ms_max", r.ms_max},         {"gbps", r.gbps},
              {"of_copy", r.of_copy},     {"of_memcpy", r.of_memcpy},   {"of_peak", r.of_peak},
              {"exact", r.exact},         {"check", r.check},           {"timed", r.timed},
              {"expected_range", r.range}, {"samples_ms", r.samples_ms}};
    for (auto it = r.extra.begin(); it != r.extra.end(); ++it) x[it.key()] = it.value();
    j["rows"].push_back(x);
  }
  return j;
}

namespace {

std::string fmt(double v, int prec) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(prec) << v;
  return s.str();
}

std::vector<std::vector<std::string>> cells(const std::vector<row>& rows, const run_meta& m,
                                            std::vector<std::string>* head) {
  const bool gpu = m.backend == "gpu";
  // Shape and dtype in their own columns: a CSV reader filters on either without parsing.
  // The block shape is the GPU ladder's; the CPU has none (no column of "-").
  *head = {"shape", "dtype", "variant"};
  if (gpu) head->push_back("block");
  head->insert(head->end(), {"ms (median)", "GB/s", gpu ? "of copy" : "of memcpy"});
  if (gpu) head->insert(head->end(), {"of memcpy", "of peak"});
  head->push_back("check");
  bool any_range = std::any_of(rows.begin(), rows.end(), [](const row& r) { return !r.range.empty(); });
  if (any_range) head->push_back("expected");
  std::vector<std::string> extra_keys;
  for (const row& r : rows)
    for (auto it = r.extra.begin(); it != r.extra.end(); ++it)
      if (std::find(extra_keys.begin(), extra_keys.end(), it.key()) == extra_keys.end()) extra_keys.push_back(it.key());
  head->insert(head->end(), extra_keys.begin(), extra_keys.end());
  std::vector<std::vector<std::string>> out;
  for (const row& r : rows) {
    const std::string label = r.spec.label(), shape = label.substr(0, label.rfind(' '));
    std::vector<std::string> c = {shape, r.spec.dtype.name, r.variant};
    if (gpu) c.push_back(r.block);
    if (r.timed) {
      c.insert(c.end(), {fmt(r.ms_median, 4), fmt(r.gbps, 1), fmt(gpu ? r.of_copy : r.of_memcpy, 3)});
      if (gpu) c.insert(c.end(), {fmt(r.of_memcpy, 3), fmt(r.of_peak, 3)});
    } else {
      c.insert(c.end(), {"-", "-", "-"});
      if (gpu) c.insert(c.end(), {"-", "-"});
    }
    c.push_back(r.check);
    if (any_range) c.push_back(r.range.empty() ? "-" : r.range);
    for (const auto& k : extra_keys) {
      if (!r.extra.contains(k)) {
        c.push_back("-");
        continue;
      }
      const json& v = r.extra[k];
      c.push_back(v.is_number_float() ? fmt(v.get<double>(), 2) : v.is_string() ? v.get<std::string>() : v.dump());
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string render(const std::vector<row>& rows, const run_meta& m, const std::string& format,
                   const std::string& title) {
  if (format == "json") return to_json(rows, m).dump(2) + "\n";
  std::vector<std::string> head;
  const auto body = cells(rows, m, &head);
  std::ostringstream s;
  if (format == "csv") {
    for (size_t i = 0; i < head.size(); ++i) s << (i ? "," : "") << head[i];
    s << "\n";
    for (const auto& r : body) {
      for (size_t i = 0; i < r.size(); ++i) {
        std::string v = r[i];
        if (v.find(',') != std::string::npos) v = "\"" + v + "\"";
        s << (i ? "," : "") << v;
      }
      s << "\n";
    }
    // What a CSV reader skips as comments (pandas: comment='#'), still in the file.
    for (const auto& l : m.legend) s << "# " << l << "\n";
    if (!m.notice.empty()) {
      std::istringstream n(m.notice);
      for (std::string l; std::getline(n, l);) s << "# " << l << "\n";
    }
    for (const auto& wmsg : m.warnings) s << "# WARNING: " << wmsg << "\n";
    return s.str();
  }
  const bool md = format == "md";
  if (!title.empty()) s << (md ? "### " : "== ") << title << (md ? "\n\n" : " ==\n");
  s << (md ? "" : "# ") << "device: " << m.device;
  if (m.backend == "gpu")
    s << " (sm_" << m.cc << "), L2 " << m.l2_bytes / (1 << 20) << " MiB, CUDA runtime " << m.runtime << ", "
      << m.driver << ", peak " << fmt(m.peak_gbs, 0) << " GB/s (" << m.peak_source << ")";
  s << (md ? "  \n" : "\n");
  s << (md ? "" : "# ") << "GB/s = 1e9 bytes/s counting read + write (2*rows*cols*elem bytes); median of "
    << (rows.empty() ? 0 : rows.front().samples_ms.size()) << " timed runs" << (md ? "  \n" : "\n");
  if (!m.cache_note.empty()) s << (md ? "" : "# ") << m.cache_note << (md ? "  \n" : "\n");
  for (const auto& l : m.legend) s << (md ? "" : "# ") << l << (md ? "  \n" : "\n");
  if (md) s << "\n";
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : body)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (md) s << "| ";
      const bool left = head[i] == "shape" || head[i] == "dtype" || head[i] == "variant" || head[i] == "block" ||
                        head[i] == "check" || head[i] == "expected";
      s << (left ? std::left : std::right) << std::setw(static_cast<int>(w[i])) << r[i] << (md ? " " : "  ");
    }
    s << (md ? "|\n" : "\n");
  };
  line(head);
  if (md) {
    for (size_t i = 0; i < head.size(); ++i) s << "|" << std::string(w[i] + 2, '-');
    s << "|\n";
  } else {
    size_t total = 0;
    for (size_t x : w) total += x + 2;
    s << std::string(total, '-') << "\n";
  }
  for (const auto& r : body) line(r);
  if (!m.notice.empty()) s << (md ? "\n" : "") << m.notice << "\n";
  for (const auto& wmsg : m.warnings) s << "WARNING: " << wmsg << "\n";
  return s.str();
}

namespace {
// A cell that is a number in JSON: digits with an optional sign, point and exponent.
bool numeric(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  (void)std::strtod(v.c_str(), &end);
  return *end == '\0' && v.find_first_not_of("0123456789.-+e") == std::string::npos;
}
}  // namespace

std::string render_table(const table& t, const std::string& format) {
  std::ostringstream s;
  if (format == "json") {
    json j;
    j["title"] = t.title;
    j["notes"] = t.notes;
    j["rows"] = json::array();
    for (const auto& r : t.rows) {
      json x = json::object();
      for (size_t i = 0; i < t.head.size() && i < r.size(); ++i)
        x[t.head[i]] = numeric(r[i]) ? json::parse(r[i], nullptr, false) : json(r[i]);
      j["rows"].push_back(x);
    }
    j["summary"] = t.summary;
    j["warnings"] = t.warnings;
    return j.dump(2) + "\n";
  }
  if (format == "csv") {
    auto field = [](const std::string& v) {
      if (v.find_first_of(",\"\n") == std::string::npos) return v;
      std::string q = "\"";
      for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    };
    for (size_t i = 0; i < t.head.size(); ++i) s << (i ? "," : "") << field(t.head[i]);
    s << "\n";
    for (const auto& r : t.rows) {
      for (size_t i = 0; i < r.size(); ++i) s << (i ? "," : "") << field(r[i]);
      s << "\n";
    }
    for (const auto& l : t.notes) s << "# " << l << "\n";
    for (const auto& l : t.summary) s << "# " << l << "\n";
    for (const auto& w : t.warnings) s << "# WARNING: " << w << "\n";
    return s.str();
  }
  const bool md = format == "md";
  if (!t.title.empty()) s << (md ? "### " : "== ") << t.title << (md ? "\n\n" : " ==\n");
  for (const auto& l : t.notes) s << (md ? "" : "# ") << l << (md ? "  \n" : "\n");
  if (md && !t.notes.empty()) s << "\n";
  std::vector<size_t> w(t.head.size());
  for (size_t i = 0; i < t.head.size(); ++i) w[i] = t.head[i].size();
  for (const auto& r : t.rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) {
      if (md) s << "| ";
      s << (numeric(r[i]) ? std::right : std::left) << std::setw(static_cast<int>(w[i])) << r[i] << (md ? " " : "  ");
    }
    s << (md ? "|\n" : "\n");
  };
  line(t.head);
  if (md) {
    for (size_t x : w) s << "|" << std::string(x + 2, '-');
    s << "|\n";
  } else {
    size_t total = 0;
    for (size_t x : w) total += x + 2;
    s << std::string(total, '-') << "\n";
  }
  for (const auto& r : t.rows) line(r);
  if (md && !t.summary.empty()) s << "\n";
  for (const auto& l : t.summary) s << l << (md ? "  \n" : "\n");
  for (const auto& x : t.warnings) s << "WARNING: " << x << (md ? "  \n" : "\n");
  return s.str();
}

}  // namespace xbench
