// In-place fuzzer: random in-place transposes (small, skinny both ways,
// squares, primes and coprime pairs, every element size, batches) with a random
// workspace (exact, larger, a whole matrix, too small, null) and pointer offsets,
// on the host backend (--mode cpu) or the device entry (--mode gpu; exit 77 without
// a GPU), compared bitwise with the out-of-place reference. A rejected call must
// name the expected status and leave the data as it was. Case i of seed s is a
// pure function of (s, i): `--seed s --case i` replays it.
#include <xpose/xpose.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace {

using xpose::index_t;
using xpose::matrix_desc;
using xpose::status;
using xpose::status_code;

constexpr int skip_code = 77;

// std::mt19937_64's sequence is fixed by the standard (only distributions vary).
struct rng {
  std::mt19937_64 g;
  std::uint64_t next() { return g(); }
  index_t uniform(index_t lo, index_t hi) { return lo + static_cast<index_t>(g() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

enum class ws_kind { exact, larger, whole, too_small, null, misaligned_data };

struct fcase {
  index_t rows, cols, batch;
  int es;
  ws_kind ws;
  std::size_t ws_bytes = 0;
  status_code expect = status_code::ok;
};

fcase draw(std::uint64_t seed, std::uint64_t index, bool device) {
  rng g{std::mt19937_64(seed * 0x100000001B3ull + index)};
  static const index_t primes[] = {2, 3, 5, 7, 31, 61, 97, 127, 257, 509, 1021, 2039, 4093};
  static const int sizes[] = {1, 2, 4, 8, 16};
  fcase c{};
  c.es = sizes[g.next() % 5];
  const int shape = static_cast<int>(g.next() % 5);
  if (shape == 0) {
    c.rows = g.uniform(1, 300), c.cols = g.uniform(1, 300);
  } else if (shape == 1) {  // skinny, either orientation
    c.rows = g.uniform(1, 33), c.cols = g.uniform(1, 30000);
    if (g.next() % 2) std::swap(c.rows, c.cols);
  } else if (shape == 2) {
    c.rows = c.cols = g.uniform(1, 700);
    if (g.next() % 2) c.rows = c.cols = 16 * g.uniform(1, 44);  // 16-byte rows: the vector and swizzled tiles
  } else if (shape == 3) {  // primes: coprime pairs, or a prime against a multiple of itself
    c.rows = primes[g.next() % 13], c.cols = primes[g.next() % 13];
    if (g.next() % 3 == 0) c.cols = c.rows * g.uniform(2, 9);
  } else {
    c.rows = g.uniform(1, 2500), c.cols = g.uniform(1, 2500);
  }
  while (c.rows * c.cols * c.es > (index_t{1} << 20)) c.cols = (c.cols + 1) / 2;  // <= 1 MiB per matrix
  c.batch = g.next() % 8 == 0 ? g.uniform(2, 3) : 1;
  const matrix_desc d = matrix_desc::packed(c.rows, c.cols, c.es, c.batch);
  std::size_t need = 0;
  static_cast<void>(xpose::inplace_workspace_size(d, device, &need));  // a drawn desc is valid
  const std::size_t whole = static_cast<std::size_t>(c.rows * c.cols * c.es);
  const int p = static_cast<int>(g.next() % 100);
  c.ws = p < 60 ? ws_kind::exact : p < 75 ? ws_kind::larger : p < 85 ? ws_kind::whole
       : p < 90 ? ws_kind::too_small : p < 95 ? ws_kind::null : ws_kind::misaligned_data;
  c.ws_bytes = need;
  if (c.ws == ws_kind::larger) c.ws_bytes = need + static_cast<std::size_t>(g.uniform(1, 4096)) * c.es;
  if (c.ws == ws_kind::whole) c.ws_bytes = need > whole ? need : whole;
  if (c.ws == ws_kind::too_small && need > 0) {
    c.ws_bytes = need - 1 - static_cast<std::size_t>(g.next() % need);
    c.expect = status_code::workspace_too_small;
  }
  if (c.ws == ws_kind::null && need > 0) c.expect = status_code::null_pointer;
  if (c.ws == ws_kind::misaligned_data && c.es > 1) c.expect = status_code::misaligned;
  return c;
}

struct buffers {  // data (+16 bytes of slack for the misaligned case) and workspace
  unsigned char* data = nullptr;
  unsigned char* ws = nullptr;
};

std::string run_case(const fcase& c, bool device) {
  const matrix_desc d = matrix_desc::packed(c.rows, c.cols, c.es, c.batch);
  const std::size_t n = static_cast<std::size_t>(c.rows * c.cols * c.batch * c.es);
  std::vector<unsigned char> orig(n + 32), got(n + 32), want(n, 0);
  rng g{std::mt19937_64(n * 31 + static_cast<std::uint64_t>(c.es))};
  for (auto& b : orig) b = static_cast<unsigned char>(g.next());
  const std::size_t shift = c.ws == ws_kind::misaligned_data ? 1 : 0;
  status s;
  if (!device) {
    std::vector<unsigned char> ws(c.ws_bytes + 16);
    got = orig;
    unsigned char* w = c.ws == ws_kind::null ? nullptr : ws.data();
    s = xpose::transpose_inplace_host(got.data() + 16 + shift, d, w, c.ws_bytes);
  } else {
#if defined(XPOSE_HAS_CUDA)
    buffers b;
    if (cudaMalloc(&b.data, n + 32) != cudaSuccess || cudaMalloc(&b.ws, c.ws_bytes + 16) != cudaSuccess)
      return "cudaMalloc failed";
    cudaMemcpy(b.data, orig.data(), n + 32, cudaMemcpyHostToDevice);
    s = xpose::transpose_inplace(b.data + 16 + shift, d, c.ws == ws_kind::null ? nullptr : b.ws, c.ws_bytes, nullptr);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got.data(), b.data, n + 32, cudaMemcpyDeviceToHost);
    cudaFree(b.data);
    cudaFree(b.ws);
    if (e != cudaSuccess) return std::string("CUDA error: ") + cudaGetErrorString(e);
#endif
  }
  if (s.code() != c.expect)
    return std::string("status ") + xpose::to_string(s.code()) + " (" + s.message() + "), expected " +
           xpose::to_string(c.expect);
  if (!s.ok() || n == 0) return got == orig ? "" : "a rejected call changed the data";
  if (std::memcmp(got.data(), orig.data(), 16 + shift) != 0 ||
      std::memcmp(got.data() + 16 + shift + n, orig.data() + 16 + shift + n, 16 - shift) != 0)
    return "wrote outside the matrix";
  if (!xpose::transpose_reference(orig.data() + 16 + shift, want.data(), d).ok()) return "reference failed";
  for (std::size_t i = 0; i < n; ++i)
    if (got[16 + shift + i] != want[i]) {
      const index_t e = static_cast<index_t>(i) / c.es, per = c.rows * c.cols;
      return "mismatch at element " + std::to_string(e) + " (batch " + std::to_string(e / per) + ", output row " +
             std::to_string(e % per / c.rows) + ", col " + std::to_string(e % per % c.rows) + ")";
    }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = "cpu";
  std::uint64_t seed = 1, cases = 1000, first = 0;
  double time_limit = 0;
  for (int a = 1; a < argc; ++a) {
    const std::string f = argv[a];
    if (a + 1 >= argc) {
      std::fprintf(stderr, "usage: %s [--mode cpu|gpu] [--seed N] [--cases N] [--case N] [--time-limit S]\n", argv[0]);
      return 2;
    }
    const char* v = argv[++a];
    if (f == "--mode") mode = v;
    else if (f == "--seed") seed = std::strtoull(v, nullptr, 0);
    else if (f == "--cases") cases = std::strtoull(v, nullptr, 0);
    else if (f == "--case") first = std::strtoull(v, nullptr, 0), cases = 1;
    else if (f == "--time-limit") time_limit = std::strtod(v, nullptr);
    else {
      std::fprintf(stderr, "fuzz_inplace: unknown option %s\n", f.c_str());
      return 2;
    }
  }
  const bool device = mode == "gpu";
  if (mode != "cpu" && mode != "gpu") {
    std::fprintf(stderr, "fuzz_inplace: --mode must be cpu or gpu\n");
    return 2;
  }
  if (device && xpose::device_count() == 0) {
    std::printf("fuzz_inplace: no CUDA device: skipped\n");
    return skip_code;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t ran = 0, failed = 0;
  for (std::uint64_t i = first; i < first + cases; ++i) {
    if (time_limit > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > time_limit)
      break;
    const fcase c = draw(seed, i, device);
    const std::string err = run_case(c, device);
    ++ran;
    if (!err.empty()) {
      ++failed;
      std::printf("FAIL case %llu: %lldx%lld batch %lld es %d ws %zu: %s\n  replay: %s --mode %s --seed %llu --case %llu\n",
                  (unsigned long long)i, (long long)c.rows, (long long)c.cols, (long long)c.batch, c.es, c.ws_bytes,
                  err.c_str(), argv[0], mode.c_str(), (unsigned long long)seed, (unsigned long long)i);
      if (failed >= 10) break;
    }
  }
  std::printf("fuzz_inplace --mode %s --seed %llu: %llu cases, %llu failed\n", mode.c_str(),
              (unsigned long long)seed, (unsigned long long)ran, (unsigned long long)failed);
  return failed ? 1 : 0;
}
