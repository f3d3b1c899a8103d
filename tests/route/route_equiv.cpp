// Equivalence of the route table (route_for) with the decision it replaces (old_policy.hpp:
// best_path_for plus best.cu's decisions after it): every field of the route, over systematic
// shapes near every threshold and random ones, all element sizes, pointer offsets, ld padding,
// batches, cc 80 and 90. Prints the probe count, the differences (0 to pass) and each row's hits.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "old_policy.hpp"
#include "../../src/internal.hpp"

using namespace xpose;
using namespace xpose::detail;

namespace {

long long probes = 0, diffs = 0;
std::vector<long long> hits(route_row_count, 0);
std::set<std::string> combos;

void print_route(const char* what, const route& r) {
  std::printf("  %s: %s k%d tile %d,%d,%d,%d,%d A%d late%d re%d deep%d tpb%d st%d oa%d m%d side%d mw%d minb%d h%d lean%d d%d "
              "slab%d call%d s64%d row%d\n",
              what, best_path_name(r.path), static_cast<int>(r.kernel), r.tile.rows, r.tile.chunks, r.tile.threads,
              r.tile.micro_bytes, r.tile.min_blocks, r.access, r.late, r.realign, r.deep, r.tpb, r.stages, r.oa, r.mode,
              r.side, r.micro, r.min_blocks, r.halo, r.lean, r.depth, r.slab, r.call_slab, r.span64, r.row);
}

void probe(const matrix_desc& d, unsigned long long ia, unsigned long long oa, int cc) {
  if (!validate_desc(d, false).ok() || d.rows == 0 || d.cols == 0 || d.batch == 0) return;
  ++probes;
  const route o = old::old_route(d, ia, oa, cc), n = route_for(d, ia, oa, cc);
  if (n.row >= 0) ++hits[n.row];
  if (std::getenv("ROUTE_COMBOS")) {
    char b[256];
    std::snprintf(b, sizeof b, "E%d %s side%d mw%d minb%d h%d lean%d d%d tile%d,%d,%d,%d,%d late%d deep%d", d.elem_size,
                  best_path_name(n.path), n.side, n.micro, n.min_blocks, n.halo, n.lean, n.depth, n.tile.rows, n.tile.chunks,
                  n.tile.threads, n.tile.micro_bytes, n.tile.min_blocks, n.late, n.deep);
    combos.insert(b);
  }
  if (!(o == n)) {
    if (++diffs <= 20) {
      std::printf("DIFF E%d %lldx%lld batch %lld ld %lld/%lld stride %lld/%lld in+%llu out+%llu cc%d\n", d.elem_size,
                  (long long)d.rows, (long long)d.cols, (long long)d.batch, (long long)d.ld_in, (long long)d.ld_out,
                  (long long)d.stride_in, (long long)d.stride_out, ia % 256, oa % 256, cc);
      print_route("old", o);
      print_route("new", n);
    }
  }
}

matrix_desc make(int E, long long rows, long long cols, long long batch, long long pin, long long pout, long long sin,
                 long long sout) {
  matrix_desc d;
  d.elem_size = E, d.rows = rows, d.cols = cols, d.batch = batch;
  d.ld_in = cols + pin, d.ld_out = rows + pout;
  d.stride_in = batch > 1 ? rows * d.ld_in + sin : 0;
  d.stride_out = batch > 1 ? cols * d.ld_out + sout : 0;
  return d;
}

const long long sides[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,   10,  11,  12,  13,  14,  15,  16,  17,  18,  20,
                           23, 24, 25, 28, 31, 32, 33, 36, 40,  47,  48,  49,  56,  60,  62,  63,  64,  65,  72,
                           80, 95, 96, 97, 111, 112, 113, 120, 127, 128, 129, 192, 224, 240, 255, 256, 257,
                           384, 511, 512, 513, 1000, 1024, 2047, 2048, 2051, 4096, 5760, 8192, 16384, 50176, 50177,
                           131072, 262144, 1000003};

}  // namespace

int main(int argc, char** argv) {
  const unsigned seed = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) : 12345u;
  const long long random_probes = argc > 2 ? std::atoll(argv[2]) : 300000;
  std::mt19937_64 rng(seed);
  const int Es[] = {1, 2, 4, 8, 16};
  // Systematic: every pair of sides, element size, cc; offsets and padding from small sets.
  const long long batches[] = {1, 2, 3, 7, 64, 4096};
  const int offs[] = {0, 1, 2, 4, 8, 16};
  for (int E : Es)
    for (int cc : {80, 90})
      for (long long r : sides)
        for (long long c : sides)
          for (long long b : batches) {
            if (r * c * b * E > (1ll << 31)) continue;
            // packed, offsets on both sides (element multiples), padded rows
            probe(make(E, r, c, b, 0, 0, 0, 0), 0, 0, cc);
            const int oi = offs[rng() % 6] * E % 256, oo = offs[rng() % 6] * E % 256;
            probe(make(E, r, c, b, 0, 0, 0, 0), 256 + oi, 512 + oo, cc);
            probe(make(E, r, c, b, 1 + rng() % 3, rng() % 2, 0, 0), 256, 512 + oo, cc);
            if (b > 1) probe(make(E, r, c, b, 0, 0, 16 / E * (1 + rng() % 2), 1 + rng() % 5), 256 + oi, 512, cc);
          }
  const long long systematic = probes;
  // Random: log-uniform sides, byte sizes near the size thresholds, random offsets and padding.
  auto logu = [&](long long lo, long long hi) {
    std::uniform_real_distribution<double> u(std::log(double(lo)), std::log(double(hi) + 1));
    return static_cast<long long>(std::exp(u(rng)));
  };
  const long long targets[] = {64 << 10, 512 << 10, 4 << 20, 16 << 20, 64 << 20, 256 << 20};
  while (probes - systematic < random_probes) {
    const int E = Es[rng() % 5], cc = rng() % 2 ? 90 : 80;
    long long r = rng() % 3 == 0 ? sides[rng() % std::size(sides)] + static_cast<long long>(rng() % 3) - 1 : logu(1, 1 << 17);
    long long c = rng() % 3 == 0 ? sides[rng() % std::size(sides)] + static_cast<long long>(rng() % 3) - 1 : logu(1, 1 << 17);
    long long b = rng() % 2 ? 1 : logu(2, 20000);
    if (rng() % 4 == 0) {  // a byte size near a threshold
      const long long t = targets[rng() % std::size(targets)];
      const long long per = std::max<long long>(1, t / (E * b) + static_cast<long long>(rng() % 5) - 2);
      if (rng() % 2) c = std::max<long long>(1, per / std::max<long long>(r, 1));
      else r = std::max<long long>(1, per / std::max<long long>(c, 1));
    }
    r = std::max<long long>(r, 1), c = std::max<long long>(c, 1);
    if (r * c * b * E > (1ll << 33)) continue;
    const long long pin = rng() % 3 ? 0 : rng() % 3 ? rng() % 8 : rng() % 100;
    const long long pout = rng() % 3 ? 0 : rng() % 3 ? rng() % 8 : rng() % 100;
    const long long sin = rng() % 4 ? 0 : rng() % 32, sout = rng() % 4 ? 0 : rng() % 32;
    if (rng() % 8 == 0) r = 1 + rng() % 64, c = 1 + rng() % 64, b = logu(2, 100000);  // batches of small matrices
    // offsets: element multiples (validation requires element-aligned pointers)
    const unsigned long long oi = rng() % 3 ? 0 : (rng() % (256 / E)) * E;
    const unsigned long long oo = rng() % 3 ? 0 : (rng() % (256 / E)) * E;
    probe(make(E, r, c, b, pin, pout, sin, sout), 4096 + oi, (1ull << 40) + oo, cc);
  }
  // The shift gathers' depth from the occupancy query, modelled as inputs.
  long long depth_diffs = 0, depth_probes = 0;
  for (bool shift : {false, true})
    for (int n3 = 0; n3 < 40; ++n3)
      for (int n2 = 0; n2 < 40; ++n2)
        for (bool smaller : {false, true}) {
          route r;
          r.depth = shift ? best_gather_shift_depth : 2;
          ++depth_probes;
          if (old::old_depth(shift, n3, n2, smaller) != route_depth(r, n3, smaller ? n2 : 0)) ++depth_diffs;
        }
  std::printf("route_equiv: seed %u, %lld probes (%lld systematic, %lld random), %lld differences; depth rule: %lld "
              "probes, %lld differences\n",
              seed, probes, systematic, probes - systematic, diffs, depth_probes, depth_diffs);
  for (int i = 0; i < route_row_count; ++i)
    std::printf("  row %2d %-55s %9lld\n", i, route_rows()[i].name, hits[i]);
  for (const std::string& c : combos) std::printf("combo %s\n", c.c_str());
  return diffs == 0 && depth_diffs == 0 ? 0 : 1;
}
