// xpose_route_tests: the GPU tests' route assertions without a GPU. The sources of
// tests/cuda that check `best` only through check_best (best_check.hpp) are compiled as host
// code with XPOSE_ROUTE_ONLY: check_best then asserts, for its pointers' offsets past 256-byte
// boundaries (where cudaMalloc places them), that best_path_for picks the route the test
// expects, and nothing else (no kernel runs; the bitwise checks need the GPU: label gpu).
// This catches a policy change that a GPU test's expectation has not followed, on any
// machine (CI has no GPU). A test that makes no route assertion is listed, not counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "best_check.hpp"

namespace {

class route_count : public ::testing::EmptyTestEventListener {
 public:
  long before = 0;
  std::vector<std::string> none;
  int tests = 0;
  void OnTestStart(const ::testing::TestInfo&) override { before = xpose_test::route_assertions(); }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    ++tests;
    if (xpose_test::route_assertions() == before) none.push_back(std::string(t.test_suite_name()) + "." + t.name());
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto* counter = new route_count;  // (owned by gtest's listener list)
  ::testing::UnitTest::GetInstance()->listeners().Append(counter);
  const int rc = RUN_ALL_TESTS();
  std::printf("xpose_route_tests: %ld route assertions in %d tests (%zu tests assert data only, on the GPU:",
              xpose_test::route_assertions(), counter->tests - static_cast<int>(counter->none.size()),
              counter->none.size());
  for (const std::string& n : counter->none) std::printf(" %s", n.c_str());
  std::printf(")\n");
  // A filter that selects no route assertion is not a pass.
  if (rc == 0 && xpose_test::route_assertions() == 0) {
    std::printf("xpose_route_tests: no route assertion ran\n");
    return 1;
  }
  // A test that loses its route assertions fails here: only these assert data alone (where a
  // route is not taken: the bitwise checks, on the GPU). A new one goes on this list knowingly.
  static const char* const data_only[] = {"BestFit.NotTaken", "BestFitWide.NotTaken", "BestWide.FarGathers"};
  if (rc == 0 && ::testing::GTEST_FLAG(filter) == "*")
    for (const std::string& n : counter->none)
      if (std::find(std::begin(data_only), std::end(data_only), n) == std::end(data_only)) {
        std::printf("xpose_route_tests: %s made no route assertion (not on the data-only list)\n", n.c_str());
        return 1;
      }
  return rc;
}
