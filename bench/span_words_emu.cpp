// Host emulation of bench/span_words.cu's word-store algorithm (the same formulas, one tile at a time, every thread's
// slots in turn), checked bitwise against a reference permutation on random small 1- and 2-byte permute_nd plans with
// the output pointer 0-3 bytes off the word grid. A check of the experiment's geometry before it runs on a GPU.
//   g++ -O2 -std=c++17 -Iinclude -Ibuild/include -Isrc bench/span_words_emu.cpp -Lbuild -lxpose -Wl,-rpath,$PWD/build
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#include <type_traits>
#include <algorithm>
#include "core/nd_map.hpp"
#include "core/span_map.hpp"
#include "xpose/plan.hpp"
using namespace xpose; using namespace xpose::detail;
template <int E> int run_e() {
  using T = std::conditional_t<E == 1, unsigned char, unsigned short>; constexpr int EPW = 4 / E;
  std::mt19937_64 gen(12345);
  int done = 0, bad = 0, skipped = 0;
  for (int tries = 0; tries < 4000 && done < 300; ++tries) {
    int r = std::uniform_int_distribution<int>(3, 6)(gen);
    index_t ext[8]; index_t cnt = 1;
    for (int k = 0; k < r; ++k) { ext[k] = std::uniform_int_distribution<int>(2, 23)(gen); cnt *= ext[k]; }
    if (cnt > 3000000) continue;
    int axes[8]; for (int k = 0; k < r; ++k) axes[k] = k;
    std::shuffle(axes, axes + r, gen);
    layout L = layout::packed(r, ext, E), O = permuted_packed(L, axes, r);
    plan p; if (!make_plan(L, O, axes, r, {}, &p).ok() || p.algo != algorithm::permute_nd) continue;
    unsigned off = std::uniform_int_distribution<int>(0, 3)(gen) / E;  // output pointer misalignment
    std::vector<T> in(cnt), out(cnt + 8, 0xEE), ref(cnt);
    for (auto& b : in) b = (T)gen();
    // reference: out[o] = in[i] by digits
    {
      std::vector<index_t> istr(r); index_t s = 1; for (int k = r - 1; k >= 0; --k) { istr[k] = s; s *= ext[k]; }
      for (index_t o = 0; o < cnt; ++o) { index_t rem = o, i = 0; for (int k = r - 1; k >= 0; --k) { index_t e = ext[axes[k]]; i += (rem % e) * istr[axes[k]]; rem /= e; } ref[o] = in[i]; }
    }
    T* op = out.data() + off;
    span_choice c = span_choose(p, in.data(), op);
    if (!span_offsets_fit32(p, c)) continue;
    span_map32 m = make_span_map<span_map32>(p, c);
    // geometry
    if (m.out_os[0] != 1) { skipped++; continue; }
    int P = m.out_pitch[0], L0 = m.out_n[0].d;
    if (P < 2 || L0 < 6) { skipped++; continue; }
    int pad = P % 2 == 0, Pp = P + pad, Wm = (L0 + 2 * (EPW - 1)) / EPW, NR = m.V / L0;
    if (NR * Wm > 256 * (E == 1 ? 4 : 6)) { skipped++; continue; }
    int runcut = 0, Lshort = L0;
    for (int cc = 0; cc < m.ncut; ++cc) if (m.cut_out_pitch[cc].d == 1) runcut = 1 << cc, Lshort = m.cut_rem[cc];
    auto smem2 = [&](int i) { return i + (i / P) * pad; };
    std::vector<T> sm(4096);
    for (index_t t = 0; t < m.tiles; ++t) {
      index_t ib, ob; int sc; m.tile(t, &ib, &ob, &sc);
      for (int pidx = 0; pidx < m.V; ++pidx) {
        int e = m.edge_bits(pidx);
        if ((e & sc) == 0) sm[smem2(pidx)] = in[ib + m.in_off(pidx)];
      }
      T* o = op + ob;
      unsigned oa = (unsigned)(uintptr_t)o;
      int Lr = (sc & runcut) ? Lshort : L0;
      for (int u = 0; u < NR * Wm; ++u) {
        int rr = u / Wm, w = u % Wm; int i0 = 0;
        unsigned woff = (unsigned)m.out_off(rr * L0, &i0); int S = smem2(i0);
        int e = m.edge_bits(rr * L0); if (((e >> 2) & sc) != 0) continue;
        int s = ((oa + woff * E) & 3) / E, j0 = EPW * w - s;
        if (j0 >= Lr) continue;
        T* gp = o + woff - s + EPW * w;
        if (((uintptr_t)gp & 3) != 0) { std::printf("misaligned\n"); return 1; }
        for (int q = 0; q < EPW; ++q) { int j = j0 + q; if (j >= 0 && j < Lr) gp[q] = sm[S + j * Pp]; }
      }
    }
    bool ok = std::memcmp(op, ref.data(), cnt * E) == 0 && out[off + cnt] == (T)0xEE && (off == 0 || out[off - 1] == (T)0xEE);
    if (!ok) { bad++; if (bad < 5) { std::printf("bad:"); for (int k = 0; k < r; ++k) std::printf(" %lld", (long long)ext[k]); std::printf(" axes"); for (int k = 0; k < r; ++k) std::printf(" %d", axes[k]); std::printf(" off %u ncut %d runcut %d\n", off, m.ncut, runcut); } }
    done++;
  }
  std::printf("E=%d: %d cases, %d bad, %d skipped\n", E, done, bad, skipped);
  return bad != 0;
}
int main() { return run_e<1>() | run_e<2>(); }
