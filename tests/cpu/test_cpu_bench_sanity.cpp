// The CPU harness's ceiling check: a transpose reported faster than the
// memcpy of the same bytes means the memcpy was disturbed, and the run must say so.
#include <gtest/gtest.h>

#include "../../tools/xpose-bench/cpu_sanity.hpp"

using xbench::ceiling_violations;
using xbench::measured_rate;

TEST(CpuBenchSanity, CeilingFastestIsClean) {
  EXPECT_TRUE(ceiling_violations("c", "memcpy", {{"memcpy", 40}, {"xpose_cpu", 38}, {"openblas", 10}}).empty());
  // Within the slack (noise between equal-speed copies) is not flagged.
  EXPECT_TRUE(ceiling_violations("c", "memcpy", {{"memcpy", 40}, {"xpose_cpu", 43}}).empty());
}

TEST(CpuBenchSanity, DisturbedCeilingIsFlagged) {
  // A disturbed run: memcpy 1.0 GB/s beside an OpenBLAS pool, xpose "18.4x memcpy".
  const auto w = ceiling_violations("1024x1024 f32", "memcpy", {{"memcpy", 1.0}, {"xpose_cpu", 18.4}, {"openblas", 0.5}});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("measurement is broken"), std::string::npos);
  EXPECT_NE(w[0].find("1024x1024 f32"), std::string::npos);
  EXPECT_NE(w[0].find("xpose_cpu"), std::string::npos);
  EXPECT_EQ(ceiling_violations("c", "memcpy", {{"memcpy", 10}, {"a", 12}, {"b", 30}}).size(), 2u);
}

TEST(CpuBenchSanity, UntimedCeilingIsFlagged) {
  EXPECT_EQ(ceiling_violations("c", "memcpy", {{"memcpy", 0}, {"xpose_cpu", 5}}).size(), 1u);
  EXPECT_TRUE(ceiling_violations("c", "memcpy", {{"memcpy", 0}, {"xpose_cpu", 0}}).empty());
}
