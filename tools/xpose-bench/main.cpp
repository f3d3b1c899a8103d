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
#include "cli.hpp"
#include "model_columns.hpp"

namespace xbench {
void require_ok(const xpose::status& s, const char* what) {
  if (s.ok()) return;
  usage_error(std::string(what) + " failed: " + xpose::to_string(s.code()) + ": " + s.message());
}
}  // namespace xbench

namespace xbench {

// In-place transpose benchmark, tools/xpose-bench/inplace.cpp.
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
// 8192x8192 (CPU, the reference benchmark case).
index_t default_side(int elem_bytes, long long l2) {
  index_t side = 1024;
  while (2.0 * static_cast<double>(side) * static_cast<double>(side) * elem_bytes < 4.0 * static_cast<double>(l2)) side *= 2;
  return side;
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
// `log`, a new file in a private directory; returns the exit status, or -1 when it
// could not start or died of a signal.
int spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
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

std::string read_all(const std::string& file) {
  std::ifstream f(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Draws the plot; returns 0, or 1 after one line on stderr. The data file, the script's
// log and the image are made in a private directory beside FILE (never FILE.json or
// FILE.log of a shared directory: nothing there is opened, truncated or deleted); the
// image is renamed onto FILE. When the plot fails the data is kept: as FILE.json when
// no such file exists (link(2) never replaces one), else in the private directory.
int plot(const std::vector<row>& rows, const run_meta& meta, const std::string& file) {
  if (file.empty()) return 0;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "xpose-bench: error: plotting %s failed: %s\n", one_line(file).c_str(), one_line(why).c_str());
    return 1;
  };
  std::string why;
  const std::string dir = private_dir_beside(file, &why);
  if (dir.empty()) return fail(why);
  const auto slash = file.rfind('/'), dot = file.rfind('.');
  const std::string ext = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? file.substr(dot) : ".png";
  const std::string data = dir + "/data.json", log = dir + "/plot.log", image = dir + "/plot" + ext;
  if (!write_new_file(data, to_json(rows, meta).dump(), &why)) {
    ::rmdir(dir.c_str());
    return fail("cannot write its data file: " + why);
  }
  const std::string py = plot_python();
  const int rc = spawn({py, plot_script(), data, image}, log);
  why = rc == -1 ? "cannot run '" + py + "' (set XPOSE_PYTHON)" : last_line(log);
  ::unlink(log.c_str());
  if (rc == 0) {
    struct stat st {};
    const bool in_place = ::lstat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode);  // a device: written, not replaced
    std::string werr;
    const bool ok = in_place ? write_file_atomic(file, read_all(image), &werr) : ::rename(image.c_str(), file.c_str()) == 0;
    if (!ok && werr.empty()) werr = std::strerror(errno);
    ::unlink(image.c_str());
    ::unlink(data.c_str());
    ::rmdir(dir.c_str());
    return ok ? 0 : fail("cannot put the image in place: " + werr);
  }
  ::unlink(image.c_str());
  if (why.empty()) why = py + " exited with status " + std::to_string(rc);
  std::string kept = data;
  if (::link(data.c_str(), (file + ".json").c_str()) == 0) {
    ::unlink(data.c_str());
    ::rmdir(dir.c_str());
    kept = file + ".json";
  }
  return fail(why + "; the measurements are in " + kept);
}

}  // namespace
}  // namespace xbench


namespace xbench {
int permute_random_main(int argc, char** argv);  // permute_random.cpp

// Subcommands with their own options (permute.cpp, sweep.cpp).
command add_permute_command(CLI::App& root, common_opts& common);
command add_ttc_command(CLI::App& root, common_opts& common);
command add_sweep_command(CLI::App& root, common_opts& common, dtype_info (*parse_dtype)(const std::string&));

namespace {

// The main command's options: the root (today's flags: --cpu, --inplace, --cpu --sweep)
// and the lab, inplace and cpu subcommands bind the same variables.
struct main_args {
  options o;
  std::string variants_s, sizes_s, dtype_s = "f32", block_s = "32x8", inplace_kinds = "square,random,skinny,batch";
  long long batch = 1;
  bool list = false, inplace = false;
};

enum : unsigned {
  opt_variants = 1,  // --variants
  opt_gpu = 2,       // --block --model --counters
  opt_device = 4,    // --device --peak-gbs
  opt_sizes = 8,     // --size --dtype --batch
  opt_cpu = 16,      // --cpu --threads
  opt_plot = 32,     // --plot
  opt_sweep = 64,    // --sweep
  opt_inplace = 128, // --inplace-kinds
};

void add_main_options(CLI::App* a, main_args& m, unsigned what) {
  options& o = m.o;
  if (what & opt_variants)
    a->add_option("--variants", m.variants_s, "comma-separated variants (default: the whole ladder; see --list)");
  if (what & opt_sizes) {
    a->add_option("--size", m.sizes_s, "RxC[,RxC...] (default: square, both buffers >= 4x L2; CPU: 8192x8192)");
    a->add_option("--dtype", m.dtype_s, "f32 f16 bf16 f64 i8 u8 i16 u16 i32 u32 i64 u64 c64 c128 bool, comma-separated");
    add_count(a, "--batch", m.batch, 0, 1ll << 40, "number of matrices, back to back");
  }
  if (what & opt_gpu) a->add_option("--block", m.block_s, "ladder block shape: 32x8 (4 elements per thread) or 32x32");
  add_count(a, "--warmup", o.warmup, 0, 10000, "untimed runs before timing");
  add_count(a, "--reps", o.reps, 1, 100000, "timed runs (median reported)");
  if (what & opt_device) add_count(a, "--device", o.device, 0, 4096, "CUDA device index");
  if (what & opt_cpu) {
    a->add_flag("--cpu", o.cpu, "benchmark the CPU backend (the default when no GPU is found)");
    add_count(a, "--threads", o.threads, 0, xpose::max_host_threads(), "CPU threads (0: all, OMP_NUM_THREADS)");
  }
  if (what & opt_device)
    add_real(a, "--peak-gbs", o.peak_gbs, 0, 1e9, "theoretical DRAM bandwidth, GB/s (default: from device attributes)");
  if (what & opt_gpu) {
    a->add_flag("--model", o.model, "add the access model's predicted sectors and bank-conflict ways (no GPU needed)");
    a->add_flag("--counters", o.counters, "measure those counters with Nsight Compute (ncu on PATH); implies --model");
  }
  if (what & opt_plot)
    a->add_option("--plot", o.plot_file, "draw GB/s against size per variant into FILE (matplotlib; PNG unless FILE's extension says)");
  if (what & opt_sweep)
    a->add_flag("--sweep", o.sweep, "CPU: the CPU sweep (every shape class and element size, buffers >= 4x the LLC)");
  if (what & opt_inplace)
    a->add_option("--inplace-kinds", m.inplace_kinds, "in-place, without --size: which default cases (square,random,skinny,batch)");
}

void print_list() {
  std::ostringstream s;
  char line[256];
  auto item = [&](const std::string& name, const std::string& what) {
    std::snprintf(line, sizeof line, "  %-14s %s\n", name.c_str(), what.c_str());
    s << line;
  };
  s << "Both backends:\n";
  item("memcpy", "the reference: cudaMemcpyAsync device-to-device (GPU), a threaded memcpy of the same bytes (CPU)");
  s << "GPU (CUDA; xpose-bench --variants NAME):\n";
  for (const auto& v : xpose::variants()) {
    const std::string n = v.name;
    if (n == "memcpy" || n.find("_next") != std::string::npos) continue;  // the reference above; candidate policies
    item(n, v.description);
  }
  s << "CPU (xpose-bench cpu --variants NAME):\n";
  for (const auto& v : cpu_variants)
    if (std::string(v.name) != "memcpy") item(v.name, v.description);
  emit(s.str());
}

// The main command, the lab tables, the CPU benchmark and the in-place benchmark.
int run_main(main_args& m, const common_opts& common, const CLI::App& root, const CLI::App* sub, const std::string& mode) {
  options& o = m.o;
  o.format = common.format;
  o.out_file = common.out_file;
  auto has = [&](const char* name) { return given(root, sub, name); };
  const bool lab = mode == "lab";
  const bool inplace = mode == "inplace" || m.inplace;
  if (mode == "cpu") o.cpu = true;
  // ---- validate everything before running anything ----
  o.threads = cpu_threads(o.threads);  // resolves 0 (and OMP_NUM_THREADS) to a bounded count
  if (has("--plot")) {
    check_output_path(o.plot_file, "--plot");
    if (plot_script().empty())
      usage_error("--plot: plot_bench.py is not installed beside " + executable_dir() + "/xpose-bench");
  }
  if (m.block_s == "32x8") o.block = {32, 8};
  else if (m.block_s == "32x32") o.block = {32, 32};
  else usage_error("unknown --block '" + m.block_s + "' (32x8 or 32x32)");
  std::vector<dtype_info> dts;
  for (const auto& d : split(m.dtype_s, ',')) dts.push_back(parse_dtype(d));

  o.model = o.model || o.counters;
  if (o.model && o.cpu) usage_error("--model and --counters describe the GPU kernels, not --cpu");

  std::string why_no_gpu;
  const bool gpu = !o.cpu && gpu_usable(&why_no_gpu);
  if (lab && !gpu)
    usage_error("lab measures the GPU kernels and needs a GPU (" + (o.cpu ? std::string("--cpu given") : why_no_gpu) + ")");
  const bool cpu_by_default = !o.cpu && !gpu && !o.model;
  if (cpu_by_default) o.cpu = true;
  if (o.sweep && (!o.cpu || has("--size"))) usage_error("--sweep is the CPU sweep: use it with --cpu, without --size");
  if (has("--variants")) {
    for (const auto& v : split(m.variants_s, ',')) {
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
  if (has("--size"))
    for (const auto& sz : split(m.sizes_s, ',')) sizes.push_back(parse_size(sz));
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
      cs.batch = m.batch;
      cs.dtype = dt;
      // Bytes of one buffer; absurd sizes stop here, before anything runs.
      const long double bytes = static_cast<long double>(r) * c * m.batch * dt.bytes;
      if (bytes > static_cast<long double>(1ll << 50)) usage_error("size " + cs.label() + " is too large");
      if (o.cpu) check_host_memory(3 * bytes, "size " + cs.label());
      o.cases.push_back(cs);
    }
  }

  if (inplace) {
    if (o.model || lab) usage_error("--inplace cannot be combined with --model, --counters or lab");
    o.sizes_given = has("--size");
    return run_inplace(o, dtypes(), gpu, m.inplace_kinds);
  }

  std::vector<row> rows;
  run_meta meta;
  meta.date = now_utc();
  meta.command = o.command;
  // The no-GPU reason is said once, in the report's notice (below).

  if (lab) {
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
    emit(render(ra, ma, o.format, "(a) copy / naive / naive_read, 32x32 threads, 4096^2 fp32"));
    // (b) the blog's ladder: 32x8 threads, 4 elements each.
    options b = a;
    b.variants = {"memcpy", "copy", "copy_shared", "naive", "naive_read", "tiled", "tiled_padded", "diagonal"};
    b.block = {32, 8};
    std::vector<row> rb;
    run_meta mb = meta;
    rc = std::max(rc, run_gpu(b, rb, mb));
    sanity_check(rb, mb);
    apply_expected_ranges(rb, mb);
    emit("\n" + render(rb, mb, o.format, "(b) the ladder, 32x8 threads, 4096^2 fp32"));
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
    if (o.format != "json" && o.format != "csv") emit(c.str());
    std::vector<row> all = ra;
    all.insert(all.end(), rb.begin(), rb.end());
    return std::max(rc, plot(all, mb, o.plot_file));
  }

  if (o.model && !gpu) {  // the model needs no GPU: predictions alone
    emit(render(table_view(model_only_rows(o, why_no_gpu, meta), o.format), meta, o.format));
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
    else meta.notice = why + (meta.notice.empty() ? "" : "\n" + meta.notice);
  }
  emit(render(table_view(rows, o.format), meta, o.format));
  if (o.counters) emit(counters_table(rows, o.format));
  for (const row& r : rows)
    if (r.check.rfind("FAILED", 0) == 0) std::fprintf(stderr, "xpose-bench: %s %s: %s\n", r.variant.c_str(), r.spec.label().c_str(), r.check.c_str());
  return std::max(rc, plot(rows, meta, o.plot_file));
}

#ifndef XPOSE_VERSION
#define XPOSE_VERSION "unknown"
#endif

const char* exit_codes =
    "Exit codes: 0 success; 1 a variant failed its bitwise check, or writing the output or the plot failed; "
    "2 bad usage or a request this machine cannot run (one line on stderr, nothing run).";

int cli_main(int argc, char** argv) {
  // `permute --random N ...`: random permutations have options of their own (permute_random.cpp).
  if (argc > 1 && std::string(argv[1]) == "permute")
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]).rfind("--random", 0) == 0) return permute_random_main(argc, argv);
  main_args m;
  common_opts common;
  for (int i = 0; i < argc; ++i) m.o.command += (i ? " " : "") + std::string(argv[i]);
  common.command = m.o.command;

  CLI::App app{"xpose-bench: matrix transpose kernels, checked bitwise and timed against a copy.\n"
               "GB/s are decimal (1e9 bytes/s) and count bytes read + bytes written.\n"
               "Without a subcommand: the GPU ladder (the CPU backend when there is no GPU)."};
  app.set_version_flag("--version", "xpose-bench " XPOSE_VERSION);
  app.option_defaults()->always_capture_default();
  app.footer(exit_codes);
  app.require_subcommand(0, 1);
  add_main_options(&app, m, ~0u);
  add_common_options(&app, common);
  app.add_flag("--list", m.list, "list the registered variants, by backend, and exit");
  app.add_flag("--inplace", m.inplace, "the in-place benchmark (the same as `xpose-bench inplace`)");

  auto sub = [&](const char* name, const char* help, unsigned what) {
    CLI::App* s = app.add_subcommand(name, help);
    s->option_defaults()->always_capture_default();
    s->footer(exit_codes);
    add_main_options(s, m, what);
    add_common_options(s, common);
    return s;
  };
  CLI::App* lab = sub("lab", "reproduce the course tables at 4096x4096 fp32 on this GPU", opt_plot | opt_device);
  CLI::App* cpu = sub("cpu", "the CPU backend against memcpy, a naive loop, OpenBLAS and NumPy (`--cpu`)",
                      opt_variants | opt_sizes | opt_cpu | opt_plot | opt_sweep);
  cpu->get_option("--variants")->description("CPU variants, comma-separated (see --list)");
  CLI::App* inplace = sub("inplace",
                          "in-place transposes against the out-of-place best (GPU) / CPU backend, a copy and (CPU) "
                          "OpenBLAS ?imatcopy (`--inplace`); default cases: squares per element size, random and "
                          "skinny rectangles",
                          opt_sizes | opt_cpu | opt_device | opt_inplace);
  std::vector<command> commands = {add_sweep_command(app, common, parse_dtype), add_permute_command(app, common),
                                   add_ttc_command(app, common)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return finish(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return finish(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return finish(app.exit(e));
  } catch (const CLI::ParseError& e) {
    usage_error(e.what());
  }
  CLI::App* chosen = nullptr;
  for (CLI::App* s : app.get_subcommands())
    if (s->parsed()) chosen = s;
  // An option given before the subcommand must be one the subcommand takes.
  if (chosen)
    for (const CLI::Option* opt : app.get_options())
      if (opt->count() > 0 && chosen->get_option_no_throw(opt->get_name()) == nullptr)
        usage_error(opt->get_name() + " does not apply to `" + chosen->get_name() + "` (see xpose-bench " +
                    chosen->get_name() + " --help)");
  check_common(common, app, chosen);
  if (m.list) {
    print_list();
    return finish(0);
  }
  for (const command& c : commands)
    if (c.app == chosen) return finish(c.run());
  if (m.inplace && m.o.sweep) usage_error("--inplace and --sweep are two different benchmarks");
  const std::string mode = chosen == lab ? "lab" : chosen == cpu ? "cpu" : chosen == inplace ? "inplace" : "";
  return finish(run_main(m, common, app, chosen, mode));
}

}  // namespace
}  // namespace xbench

int main(int argc, char** argv) {
  // An allocation that fails (a size beyond the memory, `ulimit -v`) is one line and
  // exit 2, never an abort.
  try {
    return xbench::cli_main(argc, argv);
  } catch (const std::bad_alloc&) {
    xbench::usage_error("out of memory: the run needs more host memory than this process may allocate");
  } catch (const std::length_error&) {
    xbench::usage_error("out of memory: a buffer of this size cannot be allocated");
  } catch (const std::exception& e) {
    xbench::usage_error(std::string("cannot continue: ") + e.what());
  }
}
