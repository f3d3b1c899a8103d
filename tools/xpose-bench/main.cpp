// xpose-bench: the main command. Runs the registered GPU variants (or the CPU
// backend) on the requested sizes and dtypes under the harness rules of
// docs/ARCHITECTURE.md: checked bitwise before timing, copy and memcpy in the same
// run, CUDA events, warm-ups, median of repetitions. `xpose-bench lab` reproduces
// the course tables. Exit codes: 0 ok, 1 a variant failed its check, 2 bad usage.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <regex>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#include "bench.hpp"
#include "model_columns.hpp"

namespace xbench {
void check_run_counts(int warmup, int reps) {
  if (warmup < 0 || warmup > 10000) usage_error("--warmup must be between 0 and 10000");
  if (reps < 1 || reps > 100000) usage_error("--reps must be between 1 and 100000");
}

void require_ok(const xpose::status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "xpose-bench: %s failed: %s: %s\n", what, xpose::to_string(s.code()), s.message());
  std::exit(1);
}
}  // namespace xbench

namespace xbench {

// In-place transpose benchmark (issue 14), tools/xpose-bench/inplace.cpp.
int run_inplace(const options& o, const std::vector<dtype_info>& all_dtypes, bool gpu, const std::string& kinds);

namespace {

const std::vector<dtype_info>& dtypes() {
  static const std::vector<dtype_info> d = {
      {"f32", 4, true},   {"f16", 2, true},  {"bf16", 2, true}, {"f64", 8, true},  {"i8", 1, false},
      {"u8", 1, false},   {"i16", 2, false}, {"u16", 2, false}, {"i32", 4, false}, {"u32", 4, false},
      {"i64", 8, false},  {"u64", 8, false}, {"c64", 8, true},  {"c128", 16, true}, {"bool", 1, false}};
  return d;
}

// NumPy's spellings (float32, complex64, ...) name the same types as the short ones.
const std::vector<std::pair<std::string, std::string>>& dtype_aliases() {
  static const std::vector<std::pair<std::string, std::string>> a = {
      {"float32", "f32"}, {"float16", "f16"}, {"bfloat16", "bf16"}, {"float64", "f64"},  {"int8", "i8"},
      {"uint8", "u8"},    {"int16", "i16"},   {"uint16", "u16"},    {"int32", "i32"},    {"uint32", "u32"},
      {"int64", "i64"},   {"uint64", "u64"},  {"complex64", "c64"}, {"complex128", "c128"}};
  return a;
}

dtype_info parse_dtype(const std::string& given) {
  std::string s = given;
  for (const auto& [alias, name] : dtype_aliases())
    if (alias == s) s = name;
  for (const auto& d : dtypes())
    if (d.name == s) return d;
  std::string names;
  for (const auto& d : dtypes()) names += (names.empty() ? "" : ", ") + d.name;
  usage_error("unknown dtype '" + given + "' (one of: " + names + ", or NumPy's names such as float32)");
}

// The CPU harness's rows (tools/xpose-bench/cpu_harness.cpp).
struct cpu_variant {
  const char* name;
  const char* description;
};
const cpu_variant cpu_variants[] = {
    {"memcpy", "CPU ceiling: threaded memcpy of the same bytes"},
    {"naive_loop", "CPU: plain double loop, the baseline a user writes first"},
    {"xpose_cpu", "CPU: the library's blocked, threaded backend (transpose_host)"},
    {"openblas", "CPU: OpenBLAS's out-of-place transpose (when built with OpenBLAS)"},
    {"numpy", "CPU: NumPy's np.ascontiguousarray(x.T), timed in a child process (python3 with numpy)"},
};
bool is_cpu_variant(const std::string& v) {
  for (const auto& c : cpu_variants)
    if (v == c.name) return true;
  return false;
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

// Output files are checked before anything runs: a run is never wasted on a path
// that cannot be written (exit 2, one line).
void check_writable(const std::string& path, const std::string& what) {
  if (path.empty()) usage_error(what + " needs a file name (got an empty one)");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) usage_error(what + " '" + path + "' is a directory");
    if (::access(path.c_str(), W_OK) != 0)
      usage_error(what + " '" + path + "' is not writable: " + std::strerror(errno));
    return;
  }
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    usage_error(what + " '" + path + "': cannot create a file in '" + dir + "': " + std::strerror(errno));
}

// A write that fails after the run (a full disk, /dev/full): one line, exit 1.
[[noreturn]] void write_failed(const std::string& where) {
  std::fprintf(stderr, "xpose-bench: error: writing %s failed: %s\n", where.c_str(), std::strerror(errno ? errno : EIO));
  std::exit(1);
}

void emit(const std::string& text, const options& o, bool append = false) {
  std::cout << text << std::flush;
  if (!std::cout) write_failed("standard output");
  if (!o.out_file.empty()) {
    errno = 0;
    std::ofstream f(o.out_file, append ? std::ios::app : std::ios::trunc);
    if (!f) write_failed("--out file '" + o.out_file + "'");
    f << text;
    f.close();
    if (f.fail()) write_failed("--out file '" + o.out_file + "'");
  }
}

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// The plot script travels with the binary: beside it in the build tree, in
// share/xpose of the install prefix (tools/xpose-bench/CMakeLists.txt).
std::string plot_script() {
  const std::string dir = executable_dir();
  for (const std::string& p : {dir + "/plot_bench.py", dir + "/../share/xpose/plot_bench.py"})
    if (::access(p.c_str(), R_OK) == 0) return p;
  return "";
}

// The interpreter: $XPOSE_PYTHON, the active virtual environment, the project's
// .venv (matplotlib, scripts/install-deps.sh), else python3 on PATH.
std::string plot_python() {
  if (const char* env = std::getenv("XPOSE_PYTHON"); env && *env) return env;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    const std::string p = std::string(venv) + "/bin/python";
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  const std::string built = std::string(XPOSE_SOURCE_DIR) + "/.venv/bin/python";
  if (::access(built.c_str(), X_OK) == 0) return built;
  return "python3";
}

// Runs `argv` (no shell: file names are never parsed) with stdout and stderr sent to
// `log`; returns the exit status, or -1 when it could not start or died of a signal.
int spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int e = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e != 0) return -1;
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string last_line(const std::string& file) {
  std::ifstream f(file);
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  return last;
}

// Draws the plot; returns 0, or 1 after one line on stderr.
int plot(const std::vector<row>& rows, const run_meta& meta, const options& o) {
  if (o.plot_file.empty()) return 0;
  const std::string data = o.plot_file + ".json", log = o.plot_file + ".log";
  {
    std::ofstream f(data);
    f << to_json(rows, meta).dump();
    f.close();
    if (f.fail()) {
      std::fprintf(stderr, "xpose-bench: error: plotting failed: cannot write its data file %s\n", data.c_str());
      std::remove(data.c_str());
      return 1;
    }
  }
  const std::string py = plot_python();
  const int rc = spawn({py, plot_script(), data, o.plot_file}, log);
  std::string why = rc == -1 ? "cannot run '" + py + "' (set XPOSE_PYTHON)" : last_line(log);
  std::remove(log.c_str());
  if (rc == 0) {
    std::remove(data.c_str());
    return 0;
  }
  if (why.empty()) why = py + " exited with status " + std::to_string(rc);
  std::fprintf(stderr, "xpose-bench: error: plotting %s failed (%s); the measurements are in %s\n",
               o.plot_file.c_str(), why.c_str(), data.c_str());
  return 1;
}

}  // namespace
}  // namespace xbench

namespace xbench {
int permute_main(int argc, char** argv);  // permute.cpp: `permute` and `ttc`
int sweep_main(int argc, char** argv, const std::string& command, dtype_info (*parse_dtype)(const std::string&));
}

int main(int argc, char** argv) {
  using namespace xbench;
  if (argc > 1 && (std::string(argv[1]) == "permute" || std::string(argv[1]) == "ttc")) return permute_main(argc, argv);
  options o;
  for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
  // `xpose-bench sweep ...`: the shape-class sweep (sweep.cpp).
  if (argc > 1 && std::string(argv[1]) == "sweep") return sweep_main(argc - 1, argv + 1, o.command, parse_dtype);

  CLI::App app{"xpose-bench: matrix transpose kernels, checked bitwise and timed against a copy.\n"
               "GB/s are decimal (1e9 bytes/s) and count bytes read + bytes written."};
  app.set_version_flag("--version", "xpose-bench 0.1");
  app.option_defaults()->always_capture_default();
  app.footer("Exit codes: 0 success; 1 a variant failed its bitwise check, or writing the output or the plot "
             "failed; 2 bad usage or a request this machine cannot run (one line on stderr, nothing run).");
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
  CLI::Option* out_opt = app.add_option("--out", o.out_file, "also write the output to FILE");
  CLI::Option* plot_opt =
      app.add_option("--plot", o.plot_file, "draw GB/s against size per variant into FILE.png (matplotlib)");
  app.add_flag("--model", o.model, "add the access model's predicted sectors and bank-conflict ways (no GPU needed)");
  app.add_flag("--counters", o.counters, "measure those counters with Nsight Compute (ncu on PATH); implies --model");
  app.add_flag("--sweep", o.sweep, "with --cpu: the CPU sweep (every shape class and element size, buffers >= 4x the LLC)");
  bool list = false;
  app.add_flag("--list", list, "list the registered variants and exit");
  bool inplace = false;  // issue 14
  app.add_flag("--inplace", inplace,
               "in-place transpose against the out-of-place best (GPU) / CPU backend, a copy, and (CPU) "
               "OpenBLAS ?imatcopy; default cases: squares per element size, random and skinny rectangles");
  std::string inplace_kinds = "square,random,skinny";
  app.add_option("--inplace-kinds", inplace_kinds, "with --inplace and no --size: which default cases to run");
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
    for (const auto& v : cpu_variants) std::printf("%-14s %s\n", v.name, v.description);
    return 0;
  }

  // ---- validate everything before running anything ----
  check_run_counts(o.warmup, o.reps);
  if (batch < 0) usage_error("--batch must be >= 0");
  if (o.threads < 0 || o.threads > xpose::max_host_threads())
    usage_error("--threads must be between 0 (all cores) and " + std::to_string(xpose::max_host_threads()));
  o.threads = xpose::host_threads(o.threads);  // resolves 0 (and OMP_NUM_THREADS) to a bounded count
  if (!(o.peak_gbs >= 0) || std::isinf(o.peak_gbs)) usage_error("--peak-gbs must be a finite number >= 0");
  if (o.device < 0) usage_error("--device must be >= 0");
  if (out_opt->count() > 0) check_writable(o.out_file, "--out");
  if (plot_opt->count() > 0) {
    check_writable(o.plot_file, "--plot");
    check_writable(o.plot_file + ".json", "--plot's data file");
    if (plot_script().empty())
      usage_error("--plot: plot_bench.py is not installed beside " + executable_dir() + "/xpose-bench");
  }
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
  if (lab->parsed() && !gpu)
    usage_error("lab measures the GPU kernels and needs a GPU (" + (o.cpu ? std::string("--cpu given") : why_no_gpu) + ")");
  const bool cpu_by_default = !o.cpu && !gpu && !o.model;
  if (cpu_by_default) o.cpu = true;
  if (o.sweep && (!o.cpu || size_opt->count() > 0)) usage_error("--sweep is the CPU sweep: use it with --cpu, without --size");
  if (variants_opt->count() > 0) {
    for (const auto& v : split(variants_s, ',')) {
      const bool cpu_name = is_cpu_variant(v);
      if (cpu_by_default && !cpu_name && xpose::find_variant(v) != nullptr)
        usage_error("variant '" + v + "' runs on the GPU, and there is none (" + why_no_gpu +
                    "); CPU variants: memcpy, naive_loop, xpose_cpu, openblas, numpy");
      if (o.cpu ? !cpu_name : xpose::find_variant(v) == nullptr)
        usage_error("unknown variant '" + v + "' for the " + (o.cpu ? "CPU" : "GPU") +
                    " backend (see --list; CPU: memcpy, naive_loop, xpose_cpu, openblas, numpy)");
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

  if (inplace) {  // issue 14
    if (o.model || lab->parsed()) usage_error("--inplace cannot be combined with --model, --counters or lab");
    o.sizes_given = size_opt->count() > 0;
    return run_inplace(o, dtypes(), gpu, inplace_kinds);
  }

  std::vector<row> rows;
  run_meta meta;
  meta.date = now_utc();
  meta.command = o.command;
  // The no-GPU reason is said once, in the report's notice (below).

  if (lab->parsed()) {
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
    return std::max(rc, plot(all, mb, o));
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
  if (o.cpu && !why_no_gpu.empty()) {
    const std::string why = "no GPU found (" + why_no_gpu + "): CPU backend";
    if (o.format == "csv" || o.format == "json") std::fprintf(stderr, "xpose-bench: %s\n", why.c_str());  // no notice line there
    else meta.notice = why;
  }
  emit(render(table_view(rows, o.format), meta, o.format), o);
  if (o.counters) emit(counters_table(rows, o.format), o, true);
  for (const row& r : rows)
    if (r.check.rfind("FAILED", 0) == 0) std::fprintf(stderr, "xpose-bench: %s %s: %s\n", r.variant.c_str(), r.spec.label().c_str(), r.check.c_str());
  return std::max(rc, plot(rows, meta, o));
}
