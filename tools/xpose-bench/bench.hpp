// xpose-bench internals: options, measured rows and run metadata shared by the
// GPU harness, the CPU harness and the report writers.
#pragma once

#include <xpose/registry.hpp>
#include <xpose/xpose.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace xbench {

using xpose::index_t;
using json = nlohmann::ordered_json;

struct dtype_info {
  std::string name;  // f32, bf16, c64 ...
  int bytes;
  bool floating;     // float or complex: CPU inputs avoid NaN payloads (BLAS peers scale by alpha)
};

struct case_spec {
  index_t rows = 0, cols = 0, batch = 1;
  dtype_info dtype;
  std::string label() const;
};

struct options {
  std::vector<std::string> variants;  // empty = the default list of the backend
  std::vector<case_spec> cases;
  xpose::launch_options block{32, 8};
  int warmup = 3;
  int reps = 20;
  int device = 0;
  bool cpu = false;
  int threads = 0;
  double peak_gbs = 0;  // 0 = from device attributes
  std::string format = "table";
  std::string out_file;
  std::string plot_file;
  bool sizes_given = false;
  bool model = false;     // --model: predicted columns from the access model
  bool counters = false;  // --counters: ncu's measured counters beside them
  bool sweep = false;     // --sweep (CPU): every shape class, buffers >= 4x the last-level cache
  std::string command;  // the command line, for evidence
};

/// Threads a CPU run uses: `requested` (0 = OpenMP's default, OMP_NUM_THREADS) bounded
/// by xpose::max_host_threads(); never omp_get_max_threads() unclamped.
int cpu_threads(int requested);

/// memcpy of n bytes split into `threads` page-aligned chunks (OpenMP): the CPU ceiling.
void threaded_memcpy(void* dst, const void* src, size_t n, int threads);

/// Exit 2 with one line when `bytes` of host memory (all buffers of a case together)
/// exceed what the machine has available: a run is refused before it allocates.
void check_host_memory(long double bytes, const std::string& what);

/// One measured (or failed) variant on one case.
struct row {
  std::string variant;
  std::string backend;  // gpu | cpu
  case_spec spec;
  std::string block;    // "32x8", or "-" when the variant has no block shape
  std::vector<double> samples_ms;
  double ms_median = 0, ms_min = 0, ms_max = 0;
  double gbps = 0, of_copy = 0, of_memcpy = 0, of_peak = 0;
  bool timed = false;
  bool exact = false;
  std::string check;      // "exact", "FAILED: ...", "unsupported: ..."
  std::string range;      // expected-range verdict, "" when none applies
  json extra = json::object();
};

/// What the run ran on, for the header and the JSON's "meta".
struct run_meta {
  std::string backend;  // gpu | cpu
  std::string device, driver, runtime, date, command, cache_note, notice;
  int cc = 0;
  long long l2_bytes = 0;
  double peak_gbs = 0;
  std::string peak_source;
  int threads = 0;
  std::vector<std::string> warnings;
  std::vector<std::string> legend;  // what the columns mean, one line each (table/md header, csv/json too)
};

/// A table of strings (permute, ttc, inplace): rendered as table, csv, json or md, with
/// its explanations, summary lines and warnings in every format.
struct table {
  std::string title;
  std::vector<std::string> notes;     // above the table: what it measures, what the columns mean
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> summary;   // below it
  std::vector<std::string> warnings;
};
std::string render_table(const table& t, const std::string& format);

/// Bytes a transpose of `c` moves: read + write.
inline double bytes_moved(const case_spec& c) {
  return 2.0 * static_cast<double>(c.rows) * static_cast<double>(c.cols) * static_cast<double>(c.batch) *
         c.dtype.bytes;
}

/// Median, min, max of samples.
void summarize(row& r);

/// Fills of_copy / of_memcpy / of_peak of every row of one case (same block shape).
void fill_ratios(std::vector<row>& rows, const std::string& copy_name, const std::string& memcpy_name,
                 double peak_gbs);

/// Appends the broken-measurement warning when copy is not the fastest of copy/naive/naive_read.
void sanity_check(const std::vector<row>& rows, run_meta& meta);

/// Expected ratio ranges (data/expected_ratios.json) for the detected device.
void apply_expected_ranges(std::vector<row>& rows, run_meta& meta);

// Harnesses. Return 0 on success, 1 when a variant failed its check, 2 on a usage
// error (message already printed as one line on stderr, nothing measured).
int run_gpu(const options& o, std::vector<row>& rows, run_meta& meta);
int run_cpu(const options& o, std::vector<row>& rows, run_meta& meta);

/// True when this build has the GPU harness and a device is present.
bool gpu_usable(std::string* why);

/// Largest number of bytes the GPU can hold for this run (free memory), 0 if unknown.
long long gpu_free_bytes();
long long gpu_l2_bytes();

// Reports.
std::string render(const std::vector<row>& rows, const run_meta& meta, const std::string& format,
                   const std::string& title = "");
json to_json(const std::vector<row>& rows, const run_meta& meta);

/// Progress on stderr (only when stderr is a terminal and --quiet is not given).
void set_quiet(bool quiet);
/// Whether --quiet was given.
bool quiet();
bool isatty_stderr();
void progress(size_t i, size_t n, const std::string& what);
void progress_done();

/// One line on stderr, exit code 2.
[[noreturn]] void usage_error(const std::string& message);

/// A library call the harness cannot go on without: on a status other than ok, one
/// stderr line naming it and exit code 2 (an argument the library refuses, such as a
/// thread count, is a request this machine cannot run).
void require_ok(const xpose::status& s, const char* what);

}  // namespace xbench
