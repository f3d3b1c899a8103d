// The route table's golden file (tests/route/golden.txt): for a fixed list of layouts (element
// sizes, sides about the table's thresholds, pointer offsets, padded rows, batches, batches whose input matrices lie apart; sm_90, and
// sm_80 where it differs) the route route_for gives, one line each. A change of route shows as a
// diff of that file, reviewed with the change:
//   xpose_route_golden --write tests/route/golden.txt   (regenerate)
//   xpose_route_golden --check tests/route/golden.txt   (ctest route_golden: every line equal)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../route/route_sample.hpp"

using namespace xpose;
using namespace xpose::detail;

namespace {

std::string line(const xpose_test::route_probe& p, int cc) {
  const matrix_desc& d = p.d;
  const route r = route_for(d, xpose_test::probe_addr(p.off_in, d.elem_size, false),
                            xpose_test::probe_addr(p.off_out, d.elem_size, true), cc);
  char b[512];
  int n = std::snprintf(b, sizeof b, "E%d %lldx%lld b%lld ld%lld/%lld st%lld/%lld +%lld/+%lld sm%d -> %s", d.elem_size,
                        (long long)d.rows, (long long)d.cols, (long long)d.batch, (long long)d.ld_in,
                        (long long)d.ld_out, (long long)d.stride_in, (long long)d.stride_out, p.off_in, p.off_out, cc,
                        best_path_name(r.path));
  auto add = [&](const char* k, int v) {
    if (v) n += std::snprintf(b + n, sizeof b - n, " %s%d", k, v);
  };
  if (r.tile.rows)
    n += std::snprintf(b + n, sizeof b - n, " tile%dx%d/%d/%d/%d", r.tile.rows, r.tile.chunks, r.tile.threads,
                       r.tile.micro_bytes, r.tile.min_blocks);
  if (r.access != 16) add("a", r.access);
  add("late", r.late), add("re", r.realign), add("deep", r.deep), add("tpb", r.tpb), add("st", r.stages);
  if (r.oa != 16) add("oa", r.oa);
  add("side", r.side), add("mw", r.micro), add("minb", r.min_blocks), add("h", r.halo), add("lean", r.lean);
  add("d", r.depth), add("slab", r.slab), add("call", r.call_slab), add("s64", r.span64);
  return b;
}

std::vector<std::string> golden() {
  static const long long S[] = {1, 2, 3, 6, 16, 24, 32, 48, 96, 128, 5760, 50177};
  std::vector<std::string> out;
  for (int E : {1, 2, 4, 8, 16})
    for (long long r : S)
      for (long long c : S) {
        if (r * c * E > (1ll << 30)) continue;
        for (int form = 0; form < 4; ++form) {
          xpose_test::route_probe p;
          const long long b = form >= 2 ? 64 : 1;
          if (r * c * b * E > (1ll << 30)) continue;
          p.d = matrix_desc::packed(r, c, E, b);
          if (form == 1) {  // pointers one element off, padded rows
            p.off_in = 1, p.off_out = 16 / E > 1 ? 1 : 0;
            p.d.ld_in = c + 1, p.d.ld_out = r + 3;
          }
          if (form == 3) p.d.stride_in = (r + 2) * c;  // input matrices apart: a view of 2 rows fewer
          const std::string l90 = line(p, 90), l80 = line(p, 80);
          out.push_back(l90);
          if (l80.substr(l80.find("->")) != l90.substr(l90.find("->"))) out.push_back(l80);
        }
      }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "--write") != 0 && std::strcmp(argv[1], "--check") != 0)) {
    std::fprintf(stderr, "usage: xpose_route_golden --write|--check FILE\n");
    return 2;
  }
  const std::vector<std::string> g = golden();
  if (std::strcmp(argv[1], "--write") == 0) {
    std::ofstream f(argv[2]);
    for (const std::string& l : g) f << l << '\n';
    if (!f) return std::fprintf(stderr, "xpose_route_golden: cannot write %s\n", argv[2]), 2;
    std::printf("xpose_route_golden: %zu routes written to %s\n", g.size(), argv[2]);
    return 0;
  }
  std::ifstream f(argv[2]);
  if (!f) return std::fprintf(stderr, "xpose_route_golden: cannot read %s\n", argv[2]), 2;
  std::vector<std::string> want;
  for (std::string l; std::getline(f, l);) want.push_back(l);
  size_t diffs = 0;
  for (size_t i = 0; i < std::max(want.size(), g.size()); ++i) {
    const std::string a = i < want.size() ? want[i] : "(none)", b = i < g.size() ? g[i] : "(none)";
    if (a != b && ++diffs <= 20) std::printf("line %zu:\n  golden: %s\n  now:    %s\n", i + 1, a.c_str(), b.c_str());
  }
  std::printf("xpose_route_golden: %zu routes, %zu differ from %s%s\n", g.size(), diffs, argv[2],
              diffs ? " (regenerate with --write after review)" : "");
  return diffs ? 1 : 0;
}
