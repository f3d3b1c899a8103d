// Which Highway target the CPU backend dispatched to: a vector one, on x86 and Arm
// (the Arm build runs this under qemu-user: cmake/arm64-qemu-test.sh).
#include <gtest/gtest.h>

#include <string>

#include "cpu/kernels.hpp"
#include "xpose/xpose.hpp"

TEST(CpuTarget, VectorTargetDispatched) {
  const std::string t = xpose::cpu_backend_target();
  std::printf("CPU backend target: %s\n", t.c_str());
  EXPECT_NE(t, "EMU128");
  EXPECT_NE(t, "SCALAR");
#if defined(__aarch64__)
  EXPECT_TRUE(t == "NEON" || t.rfind("SVE", 0) == 0) << t;
#elif defined(__x86_64__)
  EXPECT_TRUE(t == "SSSE3" || t == "SSE4" || t == "AVX2" || t.rfind("AVX3", 0) == 0) << t;
#endif
}

// The dispatched vector target takes 5..8 rows or columns of 1-2 byte elements by its byte-table (de)interleaves
// (FiveToEightRowsOrColumns checks them; with 4 here those shapes would silently go to the micro-tiles).
TEST(CpuTarget, WideInterleavesOnVectorTargets) {
  const xpose::detail::cpu::kernel_set& k = xpose::detail::cpu::kernels();
  EXPECT_EQ(k.interleave_max[0], xpose::detail::cpu::interleave_k_max) << k.target;
  EXPECT_EQ(k.interleave_max[1], xpose::detail::cpu::interleave_k_max) << k.target;
  for (int e = 2; e < 5; ++e) EXPECT_EQ(k.interleave_max[e], 4) << e;
}

TEST(CpuTarget, StableAcrossCalls) {
  EXPECT_EQ(std::string(xpose::cpu_backend_target()), std::string(xpose::cpu_backend_target()));
}
