// The word tile experiment's algorithm (bench/word_tile.hpp) run on the host thread by thread against a reference
// permutation, on random 1- and 2-byte plans (packed inputs and views), every output checked bitwise. Input buffers
// are exactly the view's bytes, so that AddressSanitizer catches a read past either end.
//
//   g++ -O1 -g -std=c++17 -fsanitize=address -Iinclude -Ibuild/include -Isrc -Ibench bench/word_tile_emu.cpp
//       -Lbuild -lxpose -o /tmp/wt_emu
//   LD_LIBRARY_PATH=build /tmp/wt_emu [CASES] [SEED]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "word_tile.hpp"
#include "xpose/xpose.hpp"

using xpose::index_t;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 gen(seed);
  int done = 0, bad = 0, skipped = 0, edge_cases = 0;
  for (int tries = 0; done < n && tries < 100 * n; ++tries) {
    const int E = std::uniform_int_distribution<int>(1, 2)(gen);
    const int R = std::uniform_int_distribution<int>(0, 1)(gen) ? 8 : 6;
    const int r = std::uniform_int_distribution<int>(2, 6)(gen);
    index_t ext[8];
    const double target = std::exp(std::uniform_real_distribution<double>(std::log(2e3), std::log(3e6))(gen));
    double rest = target;
    for (int k = 0; k < r; ++k) {
      const double share = std::pow(rest, 1.0 / (r - k)) * std::exp(std::uniform_real_distribution<double>(-1.3, 1.3)(gen));
      index_t e = std::max<index_t>(2, static_cast<index_t>(share));
      if (std::uniform_real_distribution<double>(0, 1)(gen) < 0.8 && e % 2 == 0) ++e;
      ext[k] = e;
      rest = std::max(1.0, rest / static_cast<double>(e));
    }
    int axes[8];
    for (int k = 0; k < r; ++k) axes[k] = k;
    std::shuffle(axes, axes + r, gen);
    if (axes[r - 1] == r - 1) std::swap(axes[r - 1], axes[0]);
    index_t count = 1;
    for (int k = 0; k < r; ++k) count *= ext[k];
    if (count > 8000000) continue;
    // A view: the parent pads some slower dims (never the fastest, which the word tile needs contiguous).
    const bool view = std::uniform_int_distribution<int>(0, 3)(gen) == 0;
    xpose::layout L = xpose::layout::packed(r, ext, E);
    if (view) {
      index_t st = 1;
      for (int k = r - 1; k >= 0; --k) {
        L.strides[k] = st;
        st *= ext[k] + (k < r - 1 ? std::uniform_int_distribution<int>(0, 3)(gen) : 0);
      }
    }
    const xpose::layout O = xpose::permuted_packed(L, axes, r);
    xpose::plan p;
    if (!xpose::make_plan(L, O, axes, r, {}, &p).ok() || p.algo != xpose::algorithm::permute_nd) continue;
    index_t span = 0;
    for (int k = 0; k < r; ++k) span += (L.extents[k] - 1) * L.strides[k];
    const std::size_t in_bytes = static_cast<std::size_t>((span + 1) * E), out_bytes = static_cast<std::size_t>(count * E);
    // An offset start: the buffer's first byte is the view's, its alignment drawn.
    const int mis = std::uniform_int_distribution<int>(0, 3)(gen) * E % 4, omis = std::uniform_int_distribution<int>(0, 1)(gen) * E * (E == 1 ? 1 : 1);
    std::vector<unsigned char> inbuf(in_bytes + 8), outbuf(out_bytes + 8), ref(out_bytes + 8);
    unsigned char* in = nullptr;
    // Exact-size heap block for the view, so that ASan sees reads past it.
    unsigned char* exact = static_cast<unsigned char*>(std::malloc(in_bytes + mis));
    in = exact + mis;
    for (std::size_t k = 0; k < in_bytes; ++k) in[k] = static_cast<unsigned char>(gen());
    unsigned char* out = outbuf.data() + omis;
    unsigned char* rout = ref.data() + omis;
    wt::geom g;
    if (!wt::choose(p, in, out, R, &g)) {
      ++skipped;
      std::free(exact);
      continue;
    }
    const wt::span_map32 m = xpose::detail::make_span_map<wt::span_map32>(p, g.c);
    std::memset(out, 0xEE, out_bytes);
    std::memset(rout, 0x11, out_bytes);
    if (!xpose::execute_host(p, in, rout, xpose::host_options{}).ok()) return 3;
    if (E == 1) (R == 8 ? wt::emulate<1, 8> : wt::emulate<1, 6>)(g, m, in, out, 0);
    else (R == 8 ? wt::emulate<2, 8> : wt::emulate<2, 6>)(g, m, in, out, 0);
    const bool ok = std::memcmp(out, rout, out_bytes) == 0;
    if (!ok || done < 12) {
      std::printf("%s E=%d r=%d", ok ? "ok " : "BAD", E, r);
      for (int k = 0; k < r; ++k) std::printf(" %lld", static_cast<long long>(ext[k]));
      std::printf(" axes");
      for (int k = 0; k < r; ++k) std::printf(" %d", axes[k]);
      std::printf(" view=%d LA=%d LB=%d Pb=%d nwl=%d nws=%d cuts A%d B%d tiles %lld pred %.3f\n", view, g.LA, g.LB,
                  g.Pb, g.nwl, g.nws, g.bitA, g.bitB, static_cast<long long>(m.tiles), g.pred);
    }
    bad += ok ? 0 : 1;
    edge_cases += g.bitA || g.bitB;
    ++done;
    std::free(exact);
  }
  std::printf("%d cases (%d with short tiles), %d mismatched, %d without a word tile\n", done, edge_cases, bad, skipped);
  return bad != 0;
}
