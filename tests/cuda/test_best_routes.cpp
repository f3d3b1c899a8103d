// Every row of best's route table (src/cuda/route_table.hpp) on the GPU: for each row, layouts
// drawn at random from the row's condition (tests/route/route_sample.hpp: random layouts kept
// where route_for takes that row), one from a fixed seed (the same every run) and one from a
// fresh seed (printed), each checked bitwise against the CPU reference, padding and gaps
// included (check_best).
#include <cstdio>
#include <random>

#include "../route/route_sample.hpp"
#include "best_check.hpp"

using namespace xpose_test;

namespace {

void check_rows(int cc, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < xpose::detail::route_row_count; ++i) {
    const xpose::detail::route_row& row = xpose::detail::route_rows()[i];
    SCOPED_TRACE(std::string("row ") + std::to_string(i) + " (" + row.name + "), sm_" + std::to_string(cc) + ", seed " +
                 std::to_string(seed));
    route_probe p;
    ASSERT_TRUE(sample_row(i, cc, rng, &p)) << "no layout drawn for the row";
    check_best(p.d, seed + static_cast<std::uint64_t>(i), p.off_in, p.off_out);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(BestRoutes, EveryRowFixedSeed) {
  REQUIRE_GPU();
  check_rows(device_cc(), 20261201);
}

TEST(BestRoutes, EveryRowFreshSeed) {
  REQUIRE_GPU();
  const std::uint64_t seed = std::random_device{}();
  std::printf("BestRoutes.EveryRowFreshSeed: seed %llu\n", static_cast<unsigned long long>(seed));
  check_rows(device_cc(), seed);
}

}  // namespace
