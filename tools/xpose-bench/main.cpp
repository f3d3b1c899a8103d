// xpose-bench: the main command. Runs the registered GPU variants (or the CPU
// backend) on the requested sizes and dtypes under the harness rules of
// docs/ARCHITECTURE.md: checked bitwise before timing, copy and memcpy in the same
// run, CUDA events, warm-ups, median of repetitions. `xpose-bench lab` reproduces
// the course tables. Exit codes: 0 ok, 1 a variant failed its check, 2 bad usage.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <regex>

#include <unistd.h>

#include "bench.hpp"
#include "model_columns.hpp"

namespace xbench {
namespace {

const std::vector<dtype_info>& dtypes() {
  static const std::vector<dtype_info> d = {
      {"f32", 4, true},   {"f16", 2, true},  {"bf16", 2, true}, {"f64", 8, true},  {"i8", 1, false},
      {"u8", 1, false},   {"i16", 2, false}, {"u16", 2, false}, {"i32", 4, false}, {"u32", 4, false},
      {"i64", 8, false},  {"u64", 8, false}, {"c64", 8, true},  {"c128", 16, true}, {"bool", 1, false}};
  return d;
}

dtype_info parse_dtype(const std::string& s) {
  for (const auto& d : dtypes())
    if (d.name == s) return d;
  std::string names;
  for (const auto& d : dtypes()) names += (names.empty() ? "" : ", ") + d.name;
  usage_error("unknown dtype '" + s + "' (one of: " + names + ")");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

index_t parse_count(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
    usage_error("malformed " + what + " '" + s + "' (expected a non-negative integer)");
  const unsigned long long v = std::stoull(s);
  if (v > (1ull << 48)) usage_error(what + " '" + s + "' is absurdly large");
  return static_cast<index_t>(v);
}

std::pair<index_t, index_t> parse_size(const std::string& s) {
  const auto parts = split(s, 'x');
  if (parts.size() != 2) usage_error("malformed size '" + s + "' (expected RxC, e.g. 8192x8192)");
  return {parse_count(parts[0], "row count in size '" + s + "'"), parse_count(parts[1], "column count in size '" + s + "'")};
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

// Default square size: both buffers together at least 4x the L2 (GPU), or
// 8192x8192 (CPU, the foundation issue's benchmark case).
index_t default_side(int elem_bytes, long long l2) {
  index_t side = 1024;
  while (2.0 * static_cast<double>(side) * static_cast<double>(side) * elem_bytes < 4.0 * static_cast<double>(l2)) side *= 2;
  return side;
}

void emit(const std::string& text, const options& o, bool append = false) {
  std::cout << text << std::flush;
  if (!o.out_file.empty()) {
    std::ofstream f(o.out_file, append ? std::ios::app : std::ios::trunc);
    if (!f) usage_error("cannot write --out file '" + o.out_file + "'");
    f << text;
  }
}

void plot(const std::vector<row>& rows, const run_meta& meta, const options& o) {
  if (o.plot_file.empty()) return;
  const std::string tmp = o.plot_file + ".json";
  std::ofstream(tmp) << to_json(rows, meta).dump();
  const std::string src = XPOSE_SOURCE_DIR;
  // matplotlib lives in the project's .venv (scripts/install-deps.sh); $XPOSE_PYTHON overrides.
  std::string py = "python3";
  if (const char* env = std::getenv("XPOSE_PYTHON")) py = env;
  else if (::access((src + "/.venv/bin/python").c_str(), X_OK) == 0) py = src + "/.venv/bin/python";
  const std::string cmd = "'" + py + "' '" + src + "/tools/plot_bench.py' '" + tmp + "' '" + o.plot_file + "'";
  if (std::system(cmd.c_str()) != 0)
    std::fprintf(stderr, "xpose-bench: plotting failed (needs python3 with matplotlib); data kept in %s\n", tmp.c_str());
  else
    std::remove(tmp.c_str());
}

}  // namespace
}  // namespace xbench

int main(int argc, char** argv) {
  using namespace xbench;
  options o;
  for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"xpose-bench: matrix transpose kernels, checked bitwise and timed against a copy.\n"
               "GB/s are decimal (1e9 bytes/s) and count bytes read + bytes written."};
  app.set_version_flag("--version", "xpose-bench 0.1");
  std::string variants_s, sizes_s, dtype_s = "f32", block_s = "32x8", format_s = "table";
  long long batch = 1;
  // Kept to tell "not given" from "given empty": an empty list is a usage error, not the default.
  CLI::Option* variants_opt =
      app.add_option("--variants", variants_s, "comma-separated variants (default: the whole ladder; see --list)");
  CLI::Option* size_opt = app.add_option("--size", sizes_s, "RxC[,RxC...] (default: square, both buffers >= 4x L2; CPU: 8192x8192)");
  app.add_option("--dtype", dtype_s, "f32 f16 bf16 f64 i8 u8 i16 u16 i32 u32 i64 u64 c64 c128 bool, comma-separated");
  app.add_option("--batch", batch, "number of matrices, back to back");
  app.add_option("--block", block_s, "ladder block shape: 32x8 (4 elements per thread) or 32x32");
  app.add_option("--warmup", o.warmup, "untimed runs before timing");
  app.add_option("--reps", o.reps, "timed runs (median reported)");
  app.add_option("--device", o.device, "CUDA device index");
  app.add_flag("--cpu", o.cpu, "benchmark the CPU backend (the default when no GPU is found)");
  app.add_option("--threads", o.threads, "CPU threads (default: all)");
  app.add_option("--peak-gbs", o.peak_gbs, "theoretical DRAM bandwidth, GB/s (default: from device attributes)");
  app.add_option("--format", format_s, "table | csv | json | md");
  app.add_option("--out", o.out_file, "also write the output to FILE");
  app.add_option("--plot", o.plot_file, "draw GB/s against size per variant into FILE.png (matplotlib)");
  app.add_flag("--model", o.model, "add the access model's predicted sectors and bank-conflict ways (no GPU needed)");
  app.add_flag("--counters", o.counters, "measure those counters with Nsight Compute (ncu on PATH); implies --model");
  app.add_flag("--sweep", o.sweep, "with --cpu: the CPU sweep (every shape class and element size, buffers >= 4x the LLC)");
  bool list = false;
  app.add_flag("--list", list, "list the registered variants and exit");
  CLI::App* lab = app.add_subcommand("lab", "reproduce the course tables at 4096x4096 fp32 on this GPU");
  lab->fallthrough();  // options after `lab` (--format, --out, --reps ...) belong to the main command
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    usage_error(e.what());
  }

  if (list) {
    for (const auto& v : xpose::variants()) std::printf("%-14s %s\n", v.name, v.description);
    return 0;
  }

  // ---- validate everything before running anything ----
  if (o.warmup < 0) usage_error("--warmup must be >= 0");
  if (o.reps < 1 || o.reps > 100000) usage_error("--reps must be between 1 and 100000");
  if (batch < 0) usage_error("--batch must be >= 0");
  if (o.threads < 0) usage_error("--threads must be >= 0");
  if (o.peak_gbs < 0) usage_error("--peak-gbs must be >= 0");
  if (format_s != "table" && format_s != "csv" && format_s != "json" && format_s != "md")
    usage_error("unknown --format '" + format_s + "' (table, csv, json or md)");
  o.format = format_s;
  if (block_s == "32x8") o.block = {32, 8};
  else if (block_s == "32x32") o.block = {32, 32};
  else usage_error("unknown --block '" + block_s + "' (32x8 or 32x32)");
  std::vector<dtype_info> dts;
  for (const auto& d : split(dtype_s, ',')) dts.push_back(parse_dtype(d));

  o.model = o.model || o.counters;
  if (o.model && o.cpu) usage_error("--model and --counters describe the GPU kernels, not --cpu");

  std::string why_no_gpu;
  const bool gpu = !o.cpu && gpu_usable(&why_no_gpu);
  if (!o.cpu && !gpu && !o.model) o.cpu = true;
  if (o.sweep && (!o.cpu || size_opt->count() > 0)) usage_error("--sweep is the CPU sweep: use it with --cpu, without --size");
  if (variants_opt->count() > 0) {
    for (const auto& v : split(variants_s, ',')) {
      const bool cpu_name = v == "memcpy" || v == "naive_loop" || v == "xpose_cpu" || v == "openblas" ||
                            v == "numpy";
      if (o.cpu ? !cpu_name : xpose::find_variant(v) == nullptr)
        usage_error("unknown variant '" + v + "' for the " + (o.cpu ? "CPU" : "GPU") +
                    " backend (see --list; CPU: memcpy, naive_loop, xpose_cpu, openblas)");
      o.variants.push_back(v);
    }
  }

  std::vector<std::pair<index_t, index_t>> sizes;
  if (size_opt->count() > 0)
    for (const auto& s : split(sizes_s, ',')) sizes.push_back(parse_size(s));
  const long long l2 = gpu ? gpu_l2_bytes() : 0;
  for (const auto& dt : dts) {
    std::vector<std::pair<index_t, index_t>> sz = sizes;
    if (sz.empty()) {
      const index_t side = o.cpu ? 8192 : default_side(dt.bytes, l2);
      sz.push_back({side, side});
    }
    for (auto [r, c] : sz) {
      case_spec cs;
      cs.rows = r;
      cs.cols = c;
      cs.batch = batch;
      cs.dtype = dt;
      // Bytes of one buffer; absurd sizes stop here, before anything runs.
      const long double bytes = static_cast<long double>(r) * c * batch * dt.bytes;
      if (bytes > static_cast<long double>(1ll << 50)) usage_error("size " + cs.label() + " is too large");
      if (o.cpu) {
        const long double avail = static_cast<long double>(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGESIZE);
        if (3 * bytes > avail)
          usage_error("size " + cs.label() + " needs " + std::to_string(static_cast<long long>(3 * bytes / 1e6)) +
                      " MB of host memory; " + std::to_string(static_cast<long long>(avail / 1e6)) + " MB available");
      }
      o.cases.push_back(cs);
    }
  }

  std::vector<row> rows;
  run_meta meta;
  meta.date = now_utc();
  meta.command = o.command;
  if (!gpu && !o.model)
    std::fprintf(stderr, "xpose-bench: %s: running the CPU backend\n",
                 (why_no_gpu.empty() ? std::string("--cpu") : "no GPU found (" + why_no_gpu + ")").c_str());

  if (lab->parsed()) {
    if (!gpu) usage_error("lab needs a GPU (" + why_no_gpu + ")");
    // (a) the course's day-12 program: 32x32 threads, one element each.
    options a = o;
    a.cases = {case_spec{4096, 4096, 1, parse_dtype("f32")}};
    a.variants = {"memcpy", "copy", "naive", "naive_read"};
    a.block = {32, 32};
    std::vector<row> ra;
    run_meta ma = meta;
    int rc = run_gpu(a, ra, ma);
    sanity_check(ra, ma);
    apply_expected_ranges(ra, ma);
    emit(render(ra, ma, o.format, "(a) copy / naive / naive_read, 32x32 threads, 4096^2 fp32"), o);
    // (b) the blog's ladder: 32x8 threads, 4 elements each.
    options b = a;
    b.variants = {"memcpy", "copy", "copy_shared", "naive", "naive_read", "tiled", "tiled_padded", "diagonal"};
    b.block = {32, 8};
    std::vector<row> rb;
    run_meta mb = meta;
    rc = std::max(rc, run_gpu(b, rb, mb));
    sanity_check(rb, mb);
    apply_expected_ranges(rb, mb);
    emit("\n" + render(rb, mb, o.format, "(b) the ladder, 32x8 threads, 4096^2 fp32"), o, true);
    // (c) fraction of the theoretical peak, from (b)'s measurements.
    std::vector<row> rc_rows;
    for (const row& r : rb)
      if (r.variant == "naive" || r.variant == "tiled" || r.variant == "tiled_padded" || r.variant == "copy" ||
          r.variant == "memcpy")
        rc_rows.push_back(r);
    std::ostringstream c;
    c << "\n" << (o.format == "md" ? "### " : "== ") << "(c) fraction of theoretical peak (" << static_cast<long long>(mb.peak_gbs)
      << " GB/s: " << mb.peak_source << ")" << (o.format == "md" ? "\n\n| variant | GB/s | of peak |\n|---|---|---|\n" : " ==\n");
    for (const row& r : rc_rows) {
      char buf[160];
      std::snprintf(buf, sizeof buf, o.format == "md" ? "| %s | %.1f | %.3f |\n" : "%-14s %9.1f GB/s  %.3f of peak\n",
                    r.variant.c_str(), r.gbps, r.of_peak);
      c << buf;
    }
    if (o.format != "json") emit(c.str(), o, true);
    std::vector<row> all = ra;
    all.insert(all.end(), rb.begin(), rb.end());
    plot(all, mb, o);
    return rc;
  }

  if (o.model && !gpu) {  // the model needs no GPU: predictions alone
    emit(render(table_view(model_only_rows(o, why_no_gpu, meta), o.format), meta, o.format), o);
    return 0;
  }
  const int rc = o.cpu ? run_cpu(o, rows, meta) : run_gpu(o, rows, meta);
  if (!o.cpu) {
    sanity_check(rows, meta);
    apply_expected_ranges(rows, meta);
  }
  if (o.model && !o.cpu) add_model_columns(rows, o, meta);
  if (o.counters && !o.cpu) add_counters(rows, o, meta);
  if (o.cpu && !why_no_gpu.empty()) meta.notice = "no GPU found (" + why_no_gpu + "): CPU backend";
  emit(render(table_view(rows, o.format), meta, o.format), o);
  if (o.counters) emit(counters_table(rows, o.format), o, true);
  plot(rows, meta, o);
  for (const row& r : rows)
    if (r.check.rfind("FAILED", 0) == 0) std::fprintf(stderr, "xpose-bench: %s %s: %s\n", r.variant.c_str(), r.spec.label().c_str(), r.check.c_str());
  return rc;
}
