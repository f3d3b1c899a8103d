// Shared by the host emulations of the slab kernels (test_best_slab.cpp,
// test_best_pipe.cpp): buffers of exact extent around a kernel run on the host, the
// comparison with the CPU reference, and the layouts every gather / scatter slab is
// checked on.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "test_util.hpp"

namespace xpose_test {

/// new[] of bytes: 16-byte aligned (malloc), exact size for ASan.
struct aligned_buf {
  std::unique_ptr<unsigned char[]> p;
  explicit aligned_buf(std::size_t n) : p(new unsigned char[n ? n : 1]) {}
};

/// Runs run(in, in_end, out) on random input placed off_in elements into a buffer that
/// ends where the input does, output off_out elements into a 0xFF-poisoned buffer, and
/// checks the output bitwise against the reference, padding and gaps untouched.
template <class Run>
void host_slab_check(const xpose::matrix_desc& d, long long off_in, long long off_out, std::uint64_t seed, Run run) {
  if (!sampled_case()) return;
  const std::size_t E = static_cast<std::size_t>(d.elem_size);
  const std::size_t ni = static_cast<std::size_t>(in_elems(d)) * E, no = static_cast<std::size_t>(out_elems(d)) * E;
  const std::size_t oi = static_cast<std::size_t>(off_in) * E, oo = static_cast<std::size_t>(off_out) * E;
  const auto src = random_bytes(ni, seed);
  aligned_buf in(oi + ni), out(oo + no);
  std::memcpy(in.p.get() + oi, src.data(), ni);
  std::memset(out.p.get(), 0xFF, oo + no);
  std::vector<unsigned char> want(no, 0xFF);
  ASSERT_TRUE(xpose::transpose_reference(src.data(), want.data(), d).ok());
  const unsigned char* pin = in.p.get() + oi;
  run(pin, pin + ni, out.p.get() + oo);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(first_mismatch(out.p.get() + oo, want.data(), d), "");
  ASSERT_EQ(std::memcmp(out.p.get() + oo, want.data(), no), 0) << "padding or gap bytes were written";
  for (std::size_t i = 0; i < oo; ++i) ASSERT_EQ(out.p[i], 0xFF) << "byte before the output written";
}

/// The gather / scatter layouts of a short side s and long side L of E-byte elements:
/// check(mode, desc, off_in, off_out) with mode 0 gather (s x L, packed output), 1
/// scatter (L x s, packed input); offsets of 0, 1, 3 elements and k - 1 = 16/E - 1,
/// padded rows on the unaligned side, gapped batches.
template <class Check>
void slab_layouts(int E, long long s, long long L, Check check) {
  const long long k = 16 / E;
  for (auto [oi, oo] : {std::pair<long long, long long>{0, 0}, {1, 0}, {0, 1}, {3, k - 1}}) {
    check(0, padded(s, L, E, 3, oi, 0, 2 * oo + 1), oi, oo);
    check(0, xpose::matrix_desc::packed(s, L, E, 2), oi, oo);
    check(1, padded(L, s, E, 3, 0, oo, oi + 1), oi, oo);
    check(1, xpose::matrix_desc::packed(L, s, E, 2), oi, oo);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace xpose_test
