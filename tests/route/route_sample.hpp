// Shapes drawn from a route table row's condition: random layouts (sides log-uniform or near
// the table's thresholds, byte sizes near its size limits, batches of small matrices, padded
// rows and batches, element offsets of both pointers), kept where route_for takes the row.
// Host-only; the GPU test (tests/cuda/test_best_routes.cpp) runs each drawn shape bitwise.
#pragma once

#include <xpose/view.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>

#include "cuda/route_table.hpp"

namespace xpose_test {

struct route_probe {
  xpose::matrix_desc d;
  long long off_in = 0, off_out = 0;  ///< elements past a 256-byte boundary
};

/// Addresses a probe's pointers have mod 256 (cudaMalloc'd buffers are 256-byte aligned).
inline unsigned long long probe_addr(long long off, int E, bool out) {
  return (out ? 0x20000000ull : 0x10000000ull) + static_cast<unsigned long long>(off * E);
}

/// One random layout of at most max_bytes per side (input or output extent).
inline route_probe draw_probe(std::mt19937_64& rng, long long max_bytes) {
  static const int Es[] = {1, 2, 4, 8, 16};
  static const long long near[] = {1,  2,  3,  4,  5,   6,   7,   8,   12,  16,   17,   24,   32,    33,   48,
                                   64, 65, 96, 112, 128, 129, 256, 512, 1024, 2048, 5760, 8192, 50176, 50177};
  auto logu = [&](double lo, double hi) {
    std::uniform_real_distribution<double> u(std::log(lo), std::log(hi + 1));
    return static_cast<long long>(std::exp(u(rng)));
  };
  auto side = [&] {
    return rng() % 2 ? std::max<long long>(1, near[rng() % std::size(near)] + static_cast<long long>(rng() % 3) - 1)
                     : logu(1, 1 << 17);
  };
  for (;;) {
    route_probe p;
    const int E = Es[rng() % 5];
    long long r = side(), c = side(), b = rng() % 2 ? 1 : logu(2, 4096);
    if (rng() % 6 == 0) r = 1 + rng() % 64, c = 1 + rng() % 64, b = logu(2, 40000);
    if (rng() % 4 == 0) {  // a call of about a threshold's bytes
      static const long long t[] = {64 << 10, 512 << 10, 4 << 20, 16 << 20, 64 << 20};
      const long long per = std::max<long long>(1, t[rng() % std::size(t)] / (E * b) + static_cast<long long>(rng() % 5) - 2);
      if (rng() % 2) c = std::max<long long>(1, per / r);
      else r = std::max<long long>(1, per / c);
    }
    const long long pin = rng() % 3 ? 0 : rng() % 9, pout = rng() % 3 ? 0 : rng() % 9;
    p.d.elem_size = E, p.d.rows = r, p.d.cols = c, p.d.batch = b;
    p.d.ld_in = c + pin, p.d.ld_out = r + pout;
    p.d.stride_in = b > 1 ? r * p.d.ld_in + (rng() % 4 ? 0 : rng() % 32) : 0;
    p.d.stride_out = b > 1 ? c * p.d.ld_out + (rng() % 4 ? 0 : rng() % 32) : 0;
    p.off_in = rng() % 3 ? 0 : static_cast<long long>(rng() % (256 / E));
    p.off_out = rng() % 3 ? 0 : static_cast<long long>(rng() % (256 / E));
    const long long in_bytes = ((b - 1) * p.d.stride_in + (r - 1) * p.d.ld_in + c + p.off_in) * E;
    const long long out_bytes = ((b - 1) * p.d.stride_out + (c - 1) * p.d.ld_out + r + p.off_out) * E;
    if (r * c > 0 && in_bytes <= max_bytes && out_bytes <= max_bytes) return p;
  }
}

/// A layout that route_for sends to table row `row` on compute capability cc (draws at most
/// `budget`); false if none was drawn.
inline bool sample_row(int row, int cc, std::mt19937_64& rng, route_probe* out, long long max_bytes = 160ll << 20,
                       long budget = 4000000) {
  for (long i = 0; i < budget; ++i) {
    const route_probe p = draw_probe(rng, max_bytes);
    const int E = p.d.elem_size;
    if (xpose::detail::route_for(p.d, probe_addr(p.off_in, E, false), probe_addr(p.off_out, E, true), cc).row == row) {
      *out = p;
      return true;
    }
  }
  return false;
}

}  // namespace xpose_test
