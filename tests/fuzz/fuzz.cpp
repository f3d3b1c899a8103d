// Differential fuzzer: random transposes (shapes biased to edge cases, padding,
// batches, every element size, pointer offsets, hostile descriptors) through every
// backend and registered variant, compared bitwise with the CPU reference, with a
// guard of known bytes before and after the output and padding checked untouched.
// Seeded and reproducible: case i of seed s is a pure function of (s, i, --small),
// so `--seed s --case i` replays one failure. Modes: cpu (host backend, the ladder's
// index maps emulated on the host, the device entries' no-GPU path), gpu (every
// registered variant and the default device entry; exit 77 without a GPU), all.
#include <xpose/index_map.hpp>
#include <xpose/registry.hpp>
#include <xpose/xpose.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>
#endif

#include "internal.hpp"  // detail::validate(..., copy_shaped): the status each target must return

namespace {

using xpose::index_t;
using xpose::matrix_desc;
using xpose::status;
using xpose::status_code;
namespace maps = xpose::maps;

constexpr std::size_t guard_bytes = 4096;  // known bytes before and after every output
constexpr int skip_code = 77;              // ctest SKIP_RETURN_CODE

// ---------------------------------------------------------------------------
// Deterministic random numbers (own code: std distributions differ across libraries)
// ---------------------------------------------------------------------------
struct rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  index_t uniform(index_t lo, index_t hi) {  // inclusive
    return lo + static_cast<index_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  int percent() { return static_cast<int>(next() % 100); }
  template <class T, std::size_t N>
  T pick(const T (&a)[N]) {
    return a[next() % N];
  }
};

const index_t tile_sizes[] = {2,   3,   4,   7,   8,    15,   16,   17,   31,   32,   33,   63,  64,
                              65,  95,  96,  97,  127,  128,  129,  255,  256,  257,  511,  512, 513,
                              1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};
const index_t primes[] = {2,   3,   5,   7,   11,  13,  17,  19,  23,   29,   37,   41,   43,   47,   53,
                          61,  67,  71,  97,  101, 113, 127, 131, 193,  251,  257,  389,  509,  521,  523,
                          769, 997, 1009, 1021, 1031, 1999, 2003, 2039, 2053, 3001, 4093, 4099, 4999};
const int elem_sizes[] = {1, 2, 4, 8, 16};

// ---------------------------------------------------------------------------
// A case
// ---------------------------------------------------------------------------
enum class hostile : int {
  none, ld_in_small, ld_out_small, stride_out_small, misaligned_in, misaligned_out, negative_field,
  bad_elem_size, null_in, null_out, overflow, alias, overlap, absurd_pitch, count
};
const char* hostile_name(hostile h) {
  static const char* n[] = {"none",           "ld_in_small",   "ld_out_small",   "stride_out_small",
                            "misaligned_in",  "misaligned_out", "negative_field", "bad_elem_size",
                            "null_in",        "null_out",      "overflow",       "alias",
                            "overlap",        "absurd_pitch"};
  return n[static_cast<int>(h)];
}

// Outputs of at least this many bytes take the CPU backend's streaming (non-temporal)
// copy-out: stream_threshold in src/cpu/blocked.cpp. Some cases are drawn above it.
constexpr std::size_t cpu_stream_threshold = std::size_t{8} << 20;

struct fuzz_case {
  matrix_desc d;        // valid: the buffers are sized from it
  index_t in_off = 0;   // input pointer offset in elements past a 256-byte boundary
  index_t out_off = 0;  // output pointer offset (transposes; copies use in_off)
  int block_y = 8;      // ladder launch shape 32 x block_y
  int threads = 0;      // CPU backend threads
  bool stream = false;  // run the GPU targets on a created non-blocking stream
  hostile bad = hostile::none;
  matrix_desc bad_d;    // the descriptor passed to the library when bad != none
  index_t overlap_off = 0;  // alias / overlap: the output pointer is the input's plus this many elements
};

std::string describe(const fuzz_case& c) {
  const matrix_desc& d = c.d;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "rows=%lld cols=%lld batch=%lld ld_in=%lld ld_out=%lld stride_in=%lld stride_out=%lld "
                "es=%d in_off=%lld out_off=%lld block=32x%d threads=%d stream=%d hostile=%s",
                (long long)d.rows, (long long)d.cols, (long long)d.batch, (long long)d.ld_in,
                (long long)d.ld_out, (long long)d.stride_in, (long long)d.stride_out, d.elem_size,
                (long long)c.in_off, (long long)c.out_off, c.block_y, c.threads, c.stream ? 1 : 0,
                hostile_name(c.bad));
  std::string s = buf;
  if (c.bad != hostile::none) {
    const matrix_desc& b = c.bad_d;
    std::snprintf(buf, sizeof buf,
                  " (passed: rows=%lld cols=%lld batch=%lld ld_in=%lld ld_out=%lld stride_in=%lld stride_out=%lld "
                  "es=%d; out = in + %lld elements when aliasing)",
                  (long long)b.rows, (long long)b.cols, (long long)b.batch, (long long)b.ld_in, (long long)b.ld_out,
                  (long long)b.stride_in, (long long)b.stride_out, b.elem_size, (long long)c.overlap_off);
    s += buf;
  }
  return s;
}

bool empty(const matrix_desc& d) { return d.rows == 0 || d.cols == 0 || d.batch == 0; }
index_t in_ext(const matrix_desc& d) {
  return empty(d) ? 0 : (d.batch - 1) * d.stride_in + (d.rows - 1) * d.ld_in + d.cols;
}
index_t out_ext(const matrix_desc& d) {
  return empty(d) ? 0 : (d.batch - 1) * d.stride_out + (d.cols - 1) * d.ld_out + d.rows;
}
// Elements of the output region: copies write the input's layout, transposes their own.
index_t region_elems(const fuzz_case& c) {
  return std::max(in_ext(c.d), out_ext(c.d)) + std::max(c.in_off, c.out_off);
}
std::size_t case_bytes(const fuzz_case& c) {
  const auto es = static_cast<std::size_t>(c.d.elem_size);
  return static_cast<std::size_t>(in_ext(c.d) + c.in_off) * es + static_cast<std::size_t>(region_elems(c)) * es;
}

struct gen_options {
  bool small = false;          // sanitizer mode: small shapes, representative list first
  std::size_t max_bytes = 0;   // bound on input + output bytes of one case
  std::size_t large_bytes = 0; // bound for the cases drawn past the streaming threshold
  index_t max_side = 5000;
};

index_t draw_side(rng& g, index_t max_side) {
  index_t v;
  const int k = g.percent();
  if (k < 5) v = 0;
  else if (k < 15) v = 1;
  else if (k < 35) v = g.pick(tile_sizes);
  else if (k < 55) v = g.pick(primes);
  else if (k < 75) v = g.uniform(2, 64);
  else if (k < 90) v = g.uniform(65, 1000);
  else v = g.uniform(1001, 5000);
  return v > max_side ? g.uniform(0, max_side) : v;
}

index_t draw_pad(rng& g, index_t n) {
  const int k = g.percent();
  if (k < 55) return 0;
  if (k < 80) return g.uniform(1, 8);
  if (k < 90) return (n + 31) / 32 * 32 - n + 32;  // the next multiple of 32, plus one tile
  return g.uniform(1, 300);
}

index_t draw_off(rng& g) {
  const int k = g.percent();
  return k < 50 ? 0 : k < 80 ? 1 : g.uniform(2, 15);
}

// Fills in leading dimensions and batch strides for the sides already in c.d.
void draw_layout(rng& g, fuzz_case& c) {
  matrix_desc& d = c.d;
  d.ld_in = d.cols + draw_pad(g, d.cols);
  d.ld_out = d.rows + draw_pad(g, d.rows);
  d.stride_in = d.rows * d.ld_in;
  d.stride_out = d.cols * d.ld_out;
  if (d.batch > 1 && !empty(d)) {
    const index_t one_in = (d.rows - 1) * d.ld_in + d.cols, one_out = (d.cols - 1) * d.ld_out + d.rows;
    int k = g.percent();
    if (k < 15) d.stride_in = 0;                                        // one input, many outputs
    else if (k < 25) d.stride_in = g.uniform(1, std::max<index_t>(1, one_in - 1));  // input batches overlap
    else if (k < 40) d.stride_in = one_in;                              // next batch starts in the padding
    else d.stride_in += g.percent() < 70 ? 0 : g.uniform(1, 100);
    k = g.percent();
    if (k < 20) d.stride_out = one_out;
    else d.stride_out += g.percent() < 70 ? 0 : g.uniform(1, 100);
  }
  // Accepted but extreme: a pitch that is never stepped (one row, one column, one
  // batch) may be as large as validation allows (2^56 bytes); nothing may overflow.
  if (g.percent() < 6 && !empty(d)) {
    const index_t top = (index_t{1} << 56) / d.elem_size;
    auto huge = [&] { return g.percent() < 50 ? top : g.uniform(index_t{1} << 31, top); };
    if (d.rows == 1) d.ld_in = huge();
    if (d.cols == 1) d.ld_out = huge();
    if (d.batch == 1) {
      d.stride_in = huge();
      d.stride_out = huge();
    }
  }
}

// Representative shapes for the sanitizers: ragged, skinny, batched, unaligned.
struct rep_shape {
  index_t rows, cols, batch, pad_in, pad_out, in_off, out_off;
  int stride_kind;  // 0 packed + pads, 1 stride_in 0 and minimal stride_out, 2 minimal both
};
const rep_shape rep_shapes[] = {
    {1, 1, 1, 0, 0, 0, 0, 0},      {33, 65, 1, 0, 0, 0, 0, 0},     {65, 33, 1, 3, 5, 1, 1, 0},
    {1, 300, 1, 0, 0, 0, 0, 0},    {300, 1, 1, 0, 0, 1, 0, 0},     {2, 129, 1, 1, 2, 0, 1, 0},
    {129, 3, 1, 7, 0, 1, 1, 0},    {31, 33, 3, 2, 1, 0, 0, 1},  {32, 32, 4, 0, 0, 1, 1, 0},
    {64, 64, 2, 0, 0, 0, 0, 0},    {127, 129, 1, 0, 0, 1, 0, 0},   {17, 70, 3, 5, 9, 1, 0, 2},
};
constexpr int rep_count = static_cast<int>(sizeof rep_shapes / sizeof rep_shapes[0]) * 5;

fuzz_case representative(int i) {
  const rep_shape& s = rep_shapes[i / 5];
  fuzz_case c;
  matrix_desc& d = c.d;
  d.rows = s.rows;
  d.cols = s.cols;
  d.batch = s.batch;
  d.elem_size = elem_sizes[i % 5];
  d.ld_in = d.cols + s.pad_in;
  d.ld_out = d.rows + s.pad_out;
  d.stride_in = d.rows * d.ld_in;
  d.stride_out = d.cols * d.ld_out;
  if (s.stride_kind >= 1) d.stride_out = (d.cols - 1) * d.ld_out + d.rows;
  if (s.stride_kind == 1) d.stride_in = 0;
  if (s.stride_kind == 2) d.stride_in = (d.rows - 1) * d.ld_in + d.cols;
  c.in_off = s.in_off;
  c.out_off = s.out_off;
  c.block_y = i % 2 ? 32 : 8;  // the ladder launches 32x8 and 32x32 only
  c.threads = i % 3;
  c.stream = i % 2 == 1;
  return c;
}

void make_hostile(rng& g, fuzz_case& c) {
  matrix_desc b = c.d;
  const bool nonempty = !empty(c.d);
  for (int attempt = 0;; ++attempt) {
    const auto h = static_cast<hostile>(g.uniform(1, static_cast<index_t>(hostile::count) - 1));
    bool ok = true;
    switch (h) {
      case hostile::ld_in_small: ok = nonempty; b.ld_in = c.d.cols - 1; break;
      case hostile::ld_out_small: ok = nonempty; b.ld_out = c.d.rows - 1; break;
      case hostile::stride_out_small: ok = nonempty && c.d.batch > 1; b.stride_out = (c.d.cols - 1) * c.d.ld_out + c.d.rows - 1; break;
      case hostile::misaligned_in:
      case hostile::misaligned_out: ok = nonempty && c.d.elem_size > 1; break;
      case hostile::negative_field: {  // every field, small or extreme negative values
        index_t* f[] = {&b.rows, &b.cols, &b.batch, &b.ld_in, &b.ld_out, &b.stride_in, &b.stride_out};
        const int k = g.percent();
        *f[g.next() % 7] = k < 60 ? -g.uniform(1, 5) : k < 80 ? -(index_t{1} << g.uniform(20, 62)) : INT64_MIN;
        break;
      }
      case hostile::alias:  // out == in
        ok = nonempty;
        c.overlap_off = 0;
        break;
      case hostile::overlap:  // out starts inside the input's extent
        ok = nonempty && in_ext(c.d) > 1;
        if (ok) c.overlap_off = g.uniform(1, in_ext(c.d) - 1);
        break;
      case hostile::absurd_pitch: {  // beyond 2^56 bytes, even where never stepped
        index_t* f[] = {&b.ld_in, &b.ld_out, &b.stride_in, &b.stride_out};
        *f[g.next() % 4] = g.percent() < 50 ? INT64_MAX : ((index_t{1} << 56) / b.elem_size) + g.uniform(1, 1000);
        break;
      }
      case hostile::bad_elem_size: { static const int bad[] = {0, 3, 5, 32, -4}; b.elem_size = g.pick(bad); break; }
      case hostile::null_in:
      case hostile::null_out: ok = nonempty; break;
      case hostile::overflow: b.batch = 1; b.rows = index_t{1} << 40; b.cols = (index_t{1} << 30) + 1; b.ld_in = b.cols; b.ld_out = b.rows; break;
      default: break;
    }
    if (ok || attempt > 20) {
      if (!ok) { b = c.d; b.elem_size = 3; c.bad = hostile::bad_elem_size; }
      else c.bad = h;
      c.bad_d = b;
      return;
    }
    b = c.d;
  }
}

fuzz_case make_case(std::uint64_t seed, std::uint64_t index, const gen_options& o) {
  if (o.small && index < static_cast<std::uint64_t>(rep_count)) return representative(static_cast<int>(index));
  rng g{seed * 0xD1B54A32D192ED03ull ^ (index + 1) * 0x9E3779B97F4A7C15ull};
  g.next();
  const index_t max_side = o.small ? std::min<index_t>(o.max_side, 160) : o.max_side;
  fuzz_case c;
  for (int attempt = 0; attempt < 64; ++attempt) {
    c = fuzz_case{};
    matrix_desc& d = c.d;
    d.elem_size = g.pick(elem_sizes);
    d.rows = draw_side(g, max_side);
    d.cols = draw_side(g, max_side);
    const int shape = g.percent();
    if (shape < 15) {  // skinny: a side of 1-8 against a long one
      const index_t short_side = g.uniform(1, 8), long_side = g.uniform(33, max_side);
      (g.percent() < 50 ? d.rows : d.cols) = short_side;
      (d.rows == short_side ? d.cols : d.rows) = long_side;
    } else if (shape < 17 && !o.small) {  // longer than gridDim.y can cover in tiles
      d.rows = g.uniform(65535 * 32 + 1, 65535 * 32 + 40000);
      d.cols = g.uniform(1, 3);
      d.elem_size = g.percent() < 50 ? 1 : 2;
    } else if (shape < 19 && !o.small) {  // very long skinny rows
      d.rows = g.uniform(1, 3);
      d.cols = g.uniform(100000, 1000000);
    } else if (shape < 21 && !o.small && o.large_bytes >= 3 * cpu_stream_threshold) {
      // Past the streaming threshold (every large CPU transpose takes that path).
      const index_t want = static_cast<index_t>(cpu_stream_threshold) / d.elem_size + g.uniform(0, 300000 / d.elem_size);
      d.rows = g.percent() < 50 ? g.pick(tile_sizes) + 1 : g.uniform(2, 3000);
      d.cols = (want + d.rows - 1) / d.rows;
    }
    int forced_batch = 0;  // the shape classes below choose their batch
    if (shape >= 21 && shape < 27) {
      // Channel shuffles (the slab paths): a short side at and around the policy's
      // thresholds (grouped kernels up to 32, slabs up to 128) against a long side at
      // and around 4x it (the slab's aspect bound), or long; either orientation.
      static const index_t shorts[] = {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 31, 32, 33, 48, 64, 65, 96, 128, 129};
      const index_t sh = g.pick(shorts);
      const int lk = g.percent();
      index_t lo = lk < 25 ? 4 * sh - 1 : lk < 50 ? 4 * sh : lk < 60 ? 4 * sh + 1 : g.uniform(4 * sh, 4 * sh + 3000);
      lo = std::min(lo, std::max<index_t>(max_side, 4 * sh + 1));
      (g.percent() < 50 ? d.rows : d.cols) = sh;
      (d.rows == sh ? d.cols : d.rows) = lo;
      forced_batch = g.percent() < 50 ? 1 : static_cast<int>(g.uniform(2, 40));
    } else if (shape >= 27 && shape < 31) {
      // Many small matrices (the whole-matrix slabs): up to 64 x 64, many per call.
      d.rows = g.uniform(1, 64);
      d.cols = g.uniform(1, 64);
      forced_batch = static_cast<int>(g.uniform(2, o.small ? 4 : 3000));
    }
    const int bk = g.percent();
    d.batch = bk < 55 ? 1 : bk < 57 ? 0 : bk < 85 ? g.uniform(2, 4) : bk < 97 ? g.uniform(5, 20) : 1;
    if (forced_batch > 0) d.batch = forced_batch;
    if (bk >= 97 && !o.small && forced_batch == 0) {  // more batches than gridDim.z covers
      d.batch = g.uniform(65536, 70000);
      d.rows = g.uniform(1, 3);
      d.cols = g.uniform(1, 3);
    }
    if (o.small && d.batch > 4) d.batch = g.uniform(2, 4);
    draw_layout(g, c);
    c.in_off = draw_off(g);
    c.out_off = draw_off(g);
    c.block_y = g.percent() < 50 ? 8 : 32;  // the ladder launches 32x8 and 32x32 only
    static const int threads[] = {0, 1, 2, 3};
    c.threads = g.pick(threads);
    c.stream = g.percent() < 50;
    const bool large = static_cast<std::size_t>(out_ext(c.d) * d.elem_size) >= cpu_stream_threshold;
    if (case_bytes(c) <= (large ? std::max(o.large_bytes, o.max_bytes) : o.max_bytes)) break;
    if (attempt == 63) {  // shrink: one batch, then halve the longer side until it fits
      d.batch = std::min<index_t>(d.batch, 1);
      while (case_bytes(c) > o.max_bytes) {
        (d.rows > d.cols ? d.rows : d.cols) /= 2;
        draw_layout(g, c);
      }
    }
  }
  if (g.percent() < 8) make_hostile(g, c);
  return c;
}

// ---------------------------------------------------------------------------
// Buffers and expected results
// ---------------------------------------------------------------------------
struct host_buf {
  unsigned char* p = nullptr;
  std::size_t n = 0;
  bool pinned = false;
  void alloc(std::size_t bytes, bool pin) {
    n = bytes;
    pinned = pin;
#if defined(XPOSE_HAS_CUDA)
    if (pin) {
      if (cudaMallocHost(reinterpret_cast<void**>(&p), bytes) != cudaSuccess) p = nullptr;
      return;
    }
#endif
    p = static_cast<unsigned char*>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
  }
  ~host_buf() {
#if defined(XPOSE_HAS_CUDA)
    if (pinned) {
      cudaFreeHost(p);
      return;
    }
#endif
    std::free(p);
  }
};

void fill_random(unsigned char* p, std::size_t n, std::uint64_t seed) {
  rng g{seed};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t x = g.next();
    std::memcpy(p + i, &x, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<unsigned char>(g.next());
}

// The guard pattern: position-dependent, so a shifted or stray write shows.
void fill_pattern(unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(0xA5 ^ (i * 29 + (i >> 8)));
}

enum class expect_kind { transpose, copy, extent };  // copies: elements, or the whole extent (memcpy)

struct run_state {
  const fuzz_case* c = nullptr;
  std::uint64_t seed = 0, index = 0;
  std::size_t region = 0;  // bytes: guard + output region + guard
  host_buf in, pattern, got, want[3];
  bool have_want[3] = {};
  unsigned char* in_case = nullptr;  // this case's input buffer (offset not applied)
  const unsigned char* in_ptr() const { return in_case + c->in_off * c->d.elem_size; }
};

std::size_t out_start(const fuzz_case& c, expect_kind k) {
  const index_t off = k == expect_kind::transpose ? c.out_off : c.in_off;
  return guard_bytes + static_cast<std::size_t>(off * c.d.elem_size);
}

const unsigned char* expected(run_state& s, expect_kind k) {
  const int i = static_cast<int>(k);
  unsigned char* w = s.want[i].p;
  if (s.have_want[i]) return w;
  std::memcpy(w, s.pattern.p, s.region);
  const fuzz_case& c = *s.c;
  const matrix_desc& d = c.d;
  if (c.bad == hostile::none && !empty(d)) {
    unsigned char* o = w + out_start(c, k);
    const auto es = static_cast<std::size_t>(d.elem_size);
    if (k == expect_kind::transpose) {
      const status st = xpose::transpose_reference(s.in_ptr(), o, d);
      if (!st.ok()) std::fprintf(stderr, "xpose_fuzz: the reference rejected a valid case: %s\n", st.message());
    } else if (k == expect_kind::extent) {
      std::memcpy(o, s.in_ptr(), static_cast<std::size_t>(in_ext(d)) * es);
    } else {
      for (index_t b = 0; b < d.batch; ++b)
        for (index_t r = 0; r < d.rows; ++r) {
          const auto at = static_cast<std::size_t>(b * d.stride_in + r * d.ld_in) * es;
          std::memcpy(o + at, s.in_ptr() + at, static_cast<std::size_t>(d.cols) * es);
        }
    }
  }
  s.have_want[i] = true;
  return w;
}

// Where the first differing byte lies, in words.
std::string locate(const run_state& s, expect_kind k, std::size_t byte, const unsigned char* got,
                   const unsigned char* want) {
  const fuzz_case& c = *s.c;
  const matrix_desc& d = c.d;
  const auto es = static_cast<std::size_t>(d.elem_size);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.region; ++i) bad += got[i] != want[i];
  char buf[512];
  const std::size_t start = out_start(c, k);
  const index_t ext = k == expect_kind::transpose ? out_ext(d) : in_ext(d);
  std::string where;
  if (byte < guard_bytes) {
    std::snprintf(buf, sizeof buf, "guard before the output, %zu bytes before its start", start - byte);
    where = buf;
  } else if (byte < start) {
    std::snprintf(buf, sizeof buf, "the %zu bytes between the guard and the output pointer", start - guard_bytes);
    where = buf;
  } else if (byte >= start + static_cast<std::size_t>(ext) * es) {
    std::snprintf(buf, sizeof buf, "after the output's last element, %zu bytes past its end",
                  byte - (start + static_cast<std::size_t>(ext) * es));
    where = buf;
  } else {
    const auto e = static_cast<index_t>((byte - start) / es);
    where = "padding or batch gap, element offset " + std::to_string(e);
    for (index_t b = 0; b < d.batch && where[0] == 'p'; ++b)
      for (index_t r = 0; r < d.rows && where[0] == 'p'; ++r)
        for (index_t col = 0; col < d.cols; ++col) {
          const index_t o = k == expect_kind::transpose ? b * d.stride_out + col * d.ld_out + r
                                                        : b * d.stride_in + r * d.ld_in + col;
          if (o == e) {
            std::snprintf(buf, sizeof buf, "element offset %lld = input (batch %lld, row %lld, col %lld)",
                          (long long)e, (long long)b, (long long)r, (long long)col);
            where = buf;
            break;
          }
        }
  }
  std::snprintf(buf, sizeof buf, "; got byte 0x%02x, want 0x%02x; %zu bytes differ in all", got[byte],
                want[byte], bad);
  return where + buf;
}

// ---------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------
struct stats {
  std::uint64_t cases = 0, checks = 0, hostile_checks = 0, failures = 0, skipped_variants = 0;
  std::uint64_t streaming = 0, extreme = 0, aliasing = 0;  // coverage of paths random draws rarely reach
};

struct context {
  std::string argv0, mode;
  gen_options gen;
  std::uint64_t seed = 1;
  std::vector<std::string> only;  // restrict to these targets
  bool verbose = false;
  std::uint64_t max_failures = 20;
  stats st;
  int cc = 0;
  bool cpu = false, gpu = false;
  bool self_test = false;  // corrupt the CPU backend's output on purpose: every corruption must be caught
  bool silent = false;     // while self-testing: count failures without printing them
};

bool wanted(const context& x, const std::string& target) {
  if (x.only.empty()) return true;
  for (const auto& t : x.only)
    if (t == target) return true;
  return false;
}

void report(context& x, const run_state& s, const std::string& target, const std::string& what) {
  ++x.st.failures;
  if (x.silent) return;
  std::string replay = x.argv0 + " --mode " + x.mode + " --seed " + std::to_string(s.seed) + " --case " +
                       std::to_string(s.index) + (x.gen.small ? " --small" : "") + " --max-bytes " +
                       std::to_string(x.gen.max_bytes) + " --target " + target;
  std::printf("FAIL seed=%" PRIu64 " case=%" PRIu64 " target=%s\n  case: %s\n  what: %s\n  replay: %s\n", s.seed,
              s.index, target.c_str(), describe(*s.c).c_str(), what.c_str(), replay.c_str());
  std::fflush(stdout);
}

// Checks a finished run: the status, then the whole region (guards, padding, elements).
void judge(context& x, run_state& s, const std::string& target, const status& got_status, bool copy_shaped,
           expect_kind k, const unsigned char* got, const void* in_arg, const void* out_arg) {
  const fuzz_case& c = *s.c;
  if (c.bad != hostile::none) {
    const status want = xpose::detail::validate(in_arg, out_arg, c.bad_d, copy_shaped);
    if (want.ok()) return;  // not hostile for this target (copies ignore ld_out and stride_out)
    ++x.st.hostile_checks;
    if (got_status.ok() || got_status.code() != want.code())
      report(x, s, target,
             std::string("hostile input: got status ") + xpose::to_string(got_status.code()) + " (" +
                 got_status.message() + "), want " + xpose::to_string(want.code()));
    else if (std::memcmp(got, s.pattern.p, s.region) != 0)
      report(x, s, target, "hostile input was rejected but the output region was modified: " +
                               locate(s, k, static_cast<std::size_t>(std::mismatch(got, got + s.region, s.pattern.p).first - got),
                                      got, s.pattern.p));
    return;
  }
  ++x.st.checks;
  if (!got_status.ok()) {
    report(x, s, target, std::string("valid case rejected: ") + xpose::to_string(got_status.code()) + ": " +
                             got_status.message());
    return;
  }
  const unsigned char* want = expected(s, k);
  if (std::memcmp(got, want, s.region) != 0) {
    const auto byte = static_cast<std::size_t>(std::mismatch(got, got + s.region, want).first - got);
    report(x, s, target, locate(s, k, byte, got, want));
  }
}

// A hostile case may need a misaligned or null pointer in place of the real one.
const void* in_arg(const fuzz_case& c, const unsigned char* p) {
  if (c.bad == hostile::null_in) return nullptr;
  if (c.bad == hostile::misaligned_in) return p + 1;
  return p;
}
void* out_arg(const fuzz_case& c, unsigned char* p, const unsigned char* in) {
  if (c.bad == hostile::alias || c.bad == hostile::overlap)
    return const_cast<unsigned char*>(in) + c.overlap_off * c.d.elem_size;
  if (c.bad == hostile::null_out) return nullptr;
  if (c.bad == hostile::misaligned_out) return p + 1;
  return p;
}
const matrix_desc& passed(const fuzz_case& c) { return c.bad == hostile::none ? c.d : c.bad_d; }

// The ladder kernel of src/cuda/ladder.cuh run on the host through the index maps:
// checks the maps on random shapes without a GPU, and that a staged store never reads
// a shared-tile slot that the load step did not fill.
bool emulate_ladder(maps::pattern p, const unsigned char* in, unsigned char* out, const matrix_desc& d,
                    int block_y, std::string* why) {
  const auto es = static_cast<std::size_t>(d.elem_size);
  const index_t gx = maps::tiles(d.cols), gy = maps::tiles(d.rows);
  const int pitch = maps::smem_pitch(p);
  std::vector<unsigned char> tile(static_cast<std::size_t>(maps::ladder_tile * pitch) * es);
  std::vector<char> filled(static_cast<std::size_t>(maps::ladder_tile * pitch));
  const bool staged = maps::uses_smem(p), tr = maps::transposes(p);
  for (index_t b = 0; b < d.batch; ++b)
    for (index_t by = 0; by < gy; ++by)
      for (index_t bx = 0; bx < gx; ++bx) {
        const maps::tile_xy t = maps::visit_tile(p, bx, by, gx, gy);
        const index_t r0 = t.y * maps::ladder_tile, c0 = t.x * maps::ladder_tile;
        std::fill(filled.begin(), filled.end(), 0);
        for (int ty = 0; ty < block_y; ++ty)
          for (int tx = 0; tx < 32; ++tx)
            for (int i = ty; i < maps::ladder_tile; i += block_y) {
              const maps::rc x = maps::load_coord(p, r0, c0, tx, i);
              if (!(x.r < d.rows && x.c < d.cols)) continue;
              const unsigned char* v = in + static_cast<std::size_t>(maps::in_offset(b, x, d.ld_in, d.stride_in)) * es;
              if (staged) {
                const auto slot = static_cast<std::size_t>(maps::smem_offset(p, maps::smem_store_slot(p, tx, i)));
                std::memcpy(tile.data() + slot * es, v, es);
                filled[slot] = 1;
              } else {
                const maps::rc y = maps::store_coord(p, r0, c0, tx, i);
                std::memcpy(out + static_cast<std::size_t>(maps::out_offset(p, b, y, d.ld_in, d.ld_out, d.stride_in,
                                                                              d.stride_out)) * es,
                            v, es);
              }
            }
        if (!staged) continue;
        for (int ty = 0; ty < block_y; ++ty)
          for (int tx = 0; tx < 32; ++tx)
            for (int i = ty; i < maps::ladder_tile; i += block_y) {
              const maps::rc y = maps::store_coord(p, r0, c0, tx, i);
              const bool inside = tr ? (y.r < d.cols && y.c < d.rows) : (y.r < d.rows && y.c < d.cols);
              if (!inside) continue;
              const auto slot = static_cast<std::size_t>(maps::smem_offset(p, maps::smem_load_slot(p, tx, i)));
              if (!filled[slot]) {
                *why = "store step reads a shared-tile slot the load step did not fill (tile " + std::to_string(bx) +
                       "," + std::to_string(by) + " thread " + std::to_string(tx) + " step " + std::to_string(i) + ")";
                return false;
              }
              std::memcpy(out + static_cast<std::size_t>(maps::out_offset(p, b, y, d.ld_in, d.ld_out, d.stride_in,
                                                                            d.stride_out)) * es,
                          tile.data() + slot * es, es);
            }
      }
  return true;
}

void run_cpu_targets(context& x, run_state& s, rng& pick) {
  const fuzz_case& c = *s.c;
  unsigned char* got = s.got.p;
  auto out_ptr = [&](expect_kind k) { return got + out_start(c, k); };
  // The CPU backend and the reference entry itself (which must honour the guards).
  for (const char* target : {"host", "reference"}) {
    if (!wanted(x, target)) continue;
    std::memcpy(got, s.pattern.p, s.region);
    const void* i = in_arg(c, s.in_ptr());
    void* o = out_arg(c, out_ptr(expect_kind::transpose), s.in_ptr());
    // Aliasing cases point the output into the input: it must come back untouched.
    const bool aliasing = c.bad == hostile::alias || c.bad == hostile::overlap;
    const std::size_t in_bytes = static_cast<std::size_t>(in_ext(c.d) * c.d.elem_size);
    std::vector<unsigned char> before;
    if (aliasing) before.assign(s.in_ptr(), s.in_ptr() + in_bytes);
    const status st = target[0] == 'h' ? xpose::transpose_host(i, o, passed(c), xpose::host_options{c.threads})
                                       : xpose::transpose_reference(i, o, passed(c));
    judge(x, s, target, st, false, expect_kind::transpose, got, i, o);
    if (aliasing && std::memcmp(before.data(), s.in_ptr(), in_bytes) != 0)
      report(x, s, target, "aliasing output was rejected but the input (its memory) was modified");
  }
  // Self-test of the checker: a stray byte in each guard, in the padding, in an element.
  if (x.self_test && c.bad == hostile::none && !empty(c.d)) {
    const matrix_desc& d = c.d;
    const auto es = static_cast<std::size_t>(d.elem_size);
    const std::size_t start = out_start(c, expect_kind::transpose);
    std::vector<std::pair<const char*, std::size_t>> spots = {
        {"guard before", guard_bytes - 1}, {"guard after", s.region - 1}, {"first element", start},
        {"last element", start + static_cast<std::size_t>(out_ext(d) - 1) * es + es - 1}};
    if (d.ld_out > d.rows && d.cols > 1) spots.push_back({"row padding", start + static_cast<std::size_t>(d.rows) * es});
    for (const auto& [name, byte] : spots) {
      std::memcpy(got, s.pattern.p, s.region);
      const status st = xpose::transpose_host(s.in_ptr(), out_ptr(expect_kind::transpose), c.d);
      got[byte] ^= 0x10;
      const std::uint64_t before = x.st.failures;
      x.silent = true;
      judge(x, s, "self-test", st, false, expect_kind::transpose, got, nullptr, nullptr);
      x.silent = false;
      const bool caught = x.st.failures == before + 1;
      x.st.failures = before;
      --x.st.checks;
      if (!caught) report(x, s, std::string("self-test:") + name, "a corrupted byte was not detected");
    }
  }
  // The ladder's index maps, emulated: one random rung per case (all rungs when replaying one target).
  if (c.bad == hostile::none) {
    std::vector<const xpose::variant_info*> rungs;
    for (const auto& v : xpose::variants())
      if (v.pattern >= 0 && v.pattern < maps::pattern_count && wanted(x, std::string("maps:") + v.name))
        rungs.push_back(&v);
    if (!rungs.empty()) {
      const auto* v = rungs[pick.next() % rungs.size()];
      const expect_kind k = v->transposes ? expect_kind::transpose : expect_kind::copy;
      std::memcpy(got, s.pattern.p, s.region);
      std::string why;
      const std::string target = std::string("maps:") + v->name;
      if (!empty(c.d) && !emulate_ladder(static_cast<maps::pattern>(v->pattern), s.in_ptr(), out_ptr(k), c.d,
                                         c.block_y, &why))
        report(x, s, target, why);
      else
        judge(x, s, target, status{}, !v->transposes, k, got, s.in_ptr(), out_ptr(k));
    }
  }
  // Without a GPU the device entries must answer no_device (or the bad input's own
  // status) and leave host memory alone.
  if (xpose::device_count() == 0 && wanted(x, "nogpu")) {
    std::memcpy(got, s.pattern.p, s.region);
    const void* i = in_arg(c, s.in_ptr());
    void* o = out_arg(c, out_ptr(expect_kind::transpose), s.in_ptr());
    status st = xpose::transpose(i, o, passed(c));
    auto expect = [&](const status& r, const char* what, bool copy_shaped) {
      const status v = xpose::detail::validate(i, o, passed(c), copy_shaped);
      const status_code want = !v.ok() ? v.code() : empty(passed(c)) ? status_code::ok : status_code::no_device;
      if (r.code() != want)
        report(x, s, std::string("nogpu:") + what,
               std::string("got ") + xpose::to_string(r.code()) + " (" + r.message() + "), want " + xpose::to_string(want));
      else if (std::memcmp(got, s.pattern.p, s.region) != 0)
        report(x, s, std::string("nogpu:") + what, "output modified without a GPU");
    };
    expect(st, "transpose", false);
    for (const auto& v : xpose::variants()) {
      st = xpose::transpose_variant(v.name, i, o, passed(c), {32, c.block_y});
      expect(st, v.name, !v.transposes);
    }
    ++x.st.checks;
  }
}

#if defined(XPOSE_HAS_CUDA)
struct device_pools {
  unsigned char *in = nullptr, *out = nullptr, *pattern = nullptr;
  cudaStream_t stream = nullptr;
};

bool cuda_ok(cudaError_t e, const char* what, context& x, const run_state& s, const std::string& target) {
  if (e == cudaSuccess) return true;
  report(x, s, target, std::string("CUDA error in ") + what + ": " + cudaGetErrorName(e) + " (" +
                           cudaGetErrorString(e) + ")");
  return false;
}

// Returns false on a CUDA error (the context may be unusable: stop).
bool run_gpu_targets(context& x, run_state& s, device_pools& dp);

// With exact allocations (--small, for compute-sanitizer) the input ends exactly where
// its extent ends, so memcheck sees any read past it; the pools would hide one.
bool run_gpu_targets_exact(context& x, run_state& s, const device_pools& pools) {
  const fuzz_case& c = *s.c;
  const auto es = static_cast<std::size_t>(c.d.elem_size);
  device_pools dp;
  dp.stream = pools.stream;
  const std::size_t in_bytes = static_cast<std::size_t>(in_ext(c.d) + c.in_off) * es;
  bool ok = cuda_ok(cudaMalloc(&dp.in, std::max<std::size_t>(in_bytes, 1)), "cudaMalloc", x, s, "setup") &&
            cuda_ok(cudaMalloc(&dp.out, s.region), "cudaMalloc", x, s, "setup") &&
            cuda_ok(cudaMalloc(&dp.pattern, s.region), "cudaMalloc", x, s, "setup");
  ok = ok && run_gpu_targets(x, s, dp);
  ok = cuda_ok(cudaDeviceSynchronize(), "synchronize", x, s, "teardown") && ok;
  cudaFree(dp.in);
  cudaFree(dp.out);
  cudaFree(dp.pattern);
  return ok;
}

bool run_gpu_targets(context& x, run_state& s, device_pools& dp) {
  const fuzz_case& c = *s.c;
  const matrix_desc& d = c.d;
  const auto es = static_cast<std::size_t>(d.elem_size);
  cudaStream_t st = c.stream ? dp.stream : nullptr;
  unsigned char* din = dp.in + c.in_off * static_cast<index_t>(es);
  if (!cuda_ok(cudaMemcpyAsync(din, s.in_ptr(), static_cast<std::size_t>(in_ext(d)) * es, cudaMemcpyHostToDevice, st),
               "upload input", x, s, "setup") ||
      !cuda_ok(cudaMemcpyAsync(dp.pattern, s.pattern.p, s.region, cudaMemcpyHostToDevice, st), "upload pattern", x, s,
               "setup"))
    return false;
  auto one = [&](const std::string& target, const xpose::variant_info* v) -> bool {
    if (!wanted(x, target)) return true;
    const bool copy_shaped = v != nullptr && !v->transposes;
    const expect_kind k = v == nullptr || v->transposes ? expect_kind::transpose
                          : v->kind == xpose::variant_kind::reference ? expect_kind::extent
                                                                      : expect_kind::copy;
    if (!cuda_ok(cudaMemcpyAsync(dp.out, dp.pattern, s.region, cudaMemcpyDeviceToDevice, st), "reset output", x, s,
                 target))
      return false;
    const void* i = in_arg(c, din);
    void* o = out_arg(c, dp.out + out_start(c, k), din);
    const status r = v ? xpose::transpose_variant(v->name, i, o, passed(c), {32, c.block_y}, st)
                       : xpose::transpose(i, o, passed(c), st);
    if (!cuda_ok(cudaMemcpyAsync(s.got.p, dp.out, s.region, cudaMemcpyDeviceToHost, st), "download output", x, s,
                 target) ||
        !cuda_ok(cudaStreamSynchronize(st), "synchronize", x, s, target) ||
        !cuda_ok(cudaGetLastError(), "after the run", x, s, target))
      return false;
    judge(x, s, target, r, copy_shaped, k, s.got.p, i, o);
    return true;
  };
  for (const auto& v : xpose::variants()) {
    if (!xpose::supports_elem_size(v, d.elem_size) || v.min_cc > x.cc) {
      ++x.st.skipped_variants;
      continue;
    }
    if (!one(v.name, &v)) return false;
  }
  return one("transpose", nullptr);
}
#endif

void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--mode cpu|gpu|all] [--seed N] [--cases N] [--first N] [--case N]\n"
               "          [--small] [--max-bytes N] [--max-side N] [--time-limit SECONDS]\n"
               "          [--target NAME]... [--max-failures N] [--verbose] [--self-test] [--require-coverage]\n"
               "targets: host reference maps:<variant> nogpu (cpu); <variant> transpose (gpu)\n",
               argv0);
}

}  // namespace

int main(int argc, char** argv) {
  context x;
  x.argv0 = argv[0];
  x.mode = "cpu";
  std::uint64_t cases = 1000, first = 0;
  double time_limit = 0;
  bool one_case = false;
  std::size_t max_bytes = 0;
  bool require_coverage = false;  // fail unless streaming, extreme-pitch and aliasing cases were drawn
  for (int a = 1; a < argc; ++a) {
    const std::string f = argv[a];
    auto value = [&]() -> const char* {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "xpose_fuzz: %s needs a value\n", f.c_str());
        std::exit(2);
      }
      return argv[++a];
    };
    if (f == "--mode") x.mode = value();
    else if (f == "--seed") x.seed = std::strtoull(value(), nullptr, 0);
    else if (f == "--cases") cases = std::strtoull(value(), nullptr, 0);
    else if (f == "--first") first = std::strtoull(value(), nullptr, 0);
    else if (f == "--case") { first = std::strtoull(value(), nullptr, 0); cases = 1; one_case = true; }
    else if (f == "--small") x.gen.small = true;
    else if (f == "--max-bytes") max_bytes = std::strtoull(value(), nullptr, 0);
    else if (f == "--max-side") x.gen.max_side = std::strtoll(value(), nullptr, 0);
    else if (f == "--time-limit") time_limit = std::strtod(value(), nullptr);
    else if (f == "--target") x.only.push_back(value());
    else if (f == "--max-failures") x.max_failures = std::strtoull(value(), nullptr, 0);
    else if (f == "--verbose") x.verbose = true;
    else if (f == "--self-test") x.self_test = true;
    else if (f == "--require-coverage") require_coverage = true;
    else {
      usage(argv[0]);
      return 2;
    }
  }
  x.cpu = x.mode == "cpu" || x.mode == "all";
  x.gpu = x.mode == "gpu" || x.mode == "all";
  if (!x.cpu && !x.gpu) {
    usage(argv[0]);
    return 2;
  }
  x.gen.max_bytes = max_bytes ? max_bytes : x.gen.small ? (std::size_t{1} << 20) : x.gpu ? (std::size_t{64} << 20)
                                                                                         : (std::size_t{8} << 20);
  x.gen.large_bytes = x.gen.small ? x.gen.max_bytes : std::max(x.gen.max_bytes, 3 * cpu_stream_threshold);
  if (x.gpu) {
#if defined(XPOSE_HAS_CUDA)
    if (xpose::device_count() == 0) {
      std::printf("xpose_fuzz: no CUDA device: GPU mode skipped\n");
      return skip_code;
    }
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    x.cc = major * 10 + minor;
#else
    std::printf("xpose_fuzz: built without CUDA: GPU mode skipped\n");
    return skip_code;
#endif
  }

  // Buffers sized for the largest case, reused (pinned when copies go to a GPU).
  run_state s;
  s.seed = x.seed;
  const std::size_t cap = std::max(x.gen.max_bytes, x.gen.large_bytes) + 2 * guard_bytes + 64 * 16;
  s.in.alloc(cap, x.gpu);
  s.pattern.alloc(cap, x.gpu);
  s.got.alloc(cap, x.gpu);
  for (auto& w : s.want) w.alloc(cap, false);
  if (!s.in.p || !s.pattern.p || !s.got.p || !s.want[0].p || !s.want[1].p || !s.want[2].p) {
    std::fprintf(stderr, "xpose_fuzz: cannot allocate %zu-byte host buffers\n", cap);
    return 1;
  }
  fill_pattern(s.pattern.p, cap);
#if defined(XPOSE_HAS_CUDA)
  device_pools dp;
  if (x.gpu) {
    if (cudaMalloc(&dp.in, cap) != cudaSuccess || cudaMalloc(&dp.out, cap) != cudaSuccess ||
        cudaMalloc(&dp.pattern, cap) != cudaSuccess ||
        cudaStreamCreateWithFlags(&dp.stream, cudaStreamNonBlocking) != cudaSuccess) {
      std::fprintf(stderr, "xpose_fuzz: cannot allocate %zu-byte device buffers\n", cap);
      return 1;
    }
  }
#endif

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  bool stopped_by_time = false, cuda_failed = false;
  std::uint64_t largest = 0;
  for (std::uint64_t i = first; i < first + cases; ++i) {
    // The time limit never cuts the representative list of --small short.
    const bool representative_list = x.gen.small && i < static_cast<std::uint64_t>(rep_count);
    if (time_limit > 0 && elapsed() > time_limit && !representative_list) {
      stopped_by_time = true;
      break;
    }
    const fuzz_case c = make_case(x.seed, i, x.gen);
    s.c = &c;
    s.index = i;
    s.region = static_cast<std::size_t>(region_elems(c) * c.d.elem_size) + 2 * guard_bytes;
    largest = std::max<std::uint64_t>(largest, case_bytes(c));
    if (c.bad == hostile::none && !empty(c.d)) {
      x.st.streaming += static_cast<std::size_t>(out_ext(c.d) * c.d.elem_size) >= cpu_stream_threshold;
      x.st.extreme += std::max({c.d.ld_in, c.d.ld_out, c.d.stride_in, c.d.stride_out}) >= index_t{1} << 31;
    }
    x.st.aliasing += c.bad == hostile::alias || c.bad == hostile::overlap;
    for (bool& h : s.have_want) h = false;
    if (x.verbose || one_case) std::printf("case %" PRIu64 ": %s\n", i, describe(c).c_str());
    // CPU only: an exactly sized input per case, so AddressSanitizer sees a read past its
    // extent (the reused buffer would hide it). GPU: the pinned buffer feeds the copies.
    const auto in_bytes = static_cast<std::size_t>((in_ext(c.d) + c.in_off) * c.d.elem_size);
    void* exact = nullptr;
    if (!x.gpu && posix_memalign(&exact, 256, std::max<std::size_t>(in_bytes, 1)) != 0) {
      std::fprintf(stderr, "xpose_fuzz: cannot allocate %zu bytes\n", in_bytes);
      return 1;
    }
    s.in_case = x.gpu ? s.in.p : static_cast<unsigned char*>(exact);
    fill_random(s.in_case, in_bytes, x.seed ^ (i * 0x2545F4914F6CDD1Dull));
    rng pick{x.seed + i * 7919};
    if (x.cpu) run_cpu_targets(x, s, pick);
    std::free(exact);
#if defined(XPOSE_HAS_CUDA)
    if (x.gpu && !(x.gen.small ? run_gpu_targets_exact(x, s, dp) : run_gpu_targets(x, s, dp))) {
      cuda_failed = true;
      ++x.st.cases;
      break;
    }
#endif
    ++x.st.cases;
    if (x.st.failures >= x.max_failures) {
      std::printf("xpose_fuzz: stopping after %" PRIu64 " failures\n", x.st.failures);
      break;
    }
  }
  std::printf("xpose_fuzz: mode=%s%s seed=%" PRIu64 " cases=%" PRIu64 " (from %" PRIu64 ") checks=%" PRIu64
              " hostile_checks=%" PRIu64 " failures=%" PRIu64 " largest_case=%.1fMiB elapsed=%.1fs%s%s\n",
              x.mode.c_str(), x.gen.small ? " small" : "", x.seed, x.st.cases, first, x.st.checks,
              x.st.hostile_checks, x.st.failures, largest / 1048576.0, elapsed(),
              stopped_by_time ? " (stopped by the time limit)" : "", cuda_failed ? " (stopped: CUDA error)" : "");
  std::printf("xpose_fuzz: coverage: streaming_cases=%" PRIu64 " extreme_pitch_cases=%" PRIu64
              " aliasing_cases=%" PRIu64 "\n",
              x.st.streaming, x.st.extreme, x.st.aliasing);
  if (require_coverage && (x.st.streaming == 0 || x.st.extreme == 0 || x.st.aliasing == 0)) {
    std::printf("xpose_fuzz: FAIL: --require-coverage: a path was never drawn\n");
    return 1;
  }
#if defined(XPOSE_HAS_CUDA)
  if (x.gpu) {
    cudaFree(dp.in);
    cudaFree(dp.out);
    cudaFree(dp.pattern);
    cudaStreamDestroy(dp.stream);
  }
#endif
  return x.st.failures == 0 ? 0 : 1;
}
