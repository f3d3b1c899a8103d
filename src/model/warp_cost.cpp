// The access model's counting rules for one warp instruction: global 32-byte sectors
// and shared-memory wavefronts, plus the totals' derived ratios. Pure functions of
// byte addresses; the ladder's maps enter only in access_model.cpp.
#include <algorithm>

#include "xpose/model.hpp"

namespace xpose::model {

const char* to_string(access a) noexcept {
  switch (a) {
    case access::global_load: return "global_load";
    case access::smem_store: return "smem_store";
    case access::smem_load: return "smem_load";
    case access::global_store: return "global_store";
  }
  return "unknown_access";
}

int global_sectors(const lane_addresses& lanes, int elem_size) noexcept {
  // An element of <= 16 bytes spans at most two sectors even when misaligned; the
  // bound only guards against element sizes outside the model.
  std::array<std::int64_t, 64> sectors{};
  int n = 0;
  for (const std::int64_t a : lanes) {
    if (a == inactive) continue;
    for (std::int64_t s = a / 32; s <= (a + elem_size - 1) / 32 && n < 64; ++s) sectors[n++] = s;
  }
  std::sort(sectors.begin(), sectors.begin() + n);
  return static_cast<int>(std::unique(sectors.begin(), sectors.begin() + n) - sectors.begin());
}

smem_cost smem_wavefronts(const lane_addresses& lanes, int elem_size) noexcept {
  constexpr int banks = 32, bank_bytes = 4;
  // A wavefront moves at most 128 bytes (32 banks x 4 bytes), so wide elements are
  // served a half-warp (8 bytes) or quarter-warp (16 bytes) at a time.
  const int group = elem_size <= bank_bytes ? 32 : 32 * bank_bytes / elem_size;
  smem_cost cost;
  for (int g0 = 0; g0 < 32; g0 += group) {
    // 32-bit words the group touches; at most 64 (a misaligned 4-byte access spans two).
    std::array<std::int64_t, 64> words{};
    int n = 0;
    for (int lane = g0; lane < g0 + group; ++lane) {
      const std::int64_t a = lanes[static_cast<std::size_t>(lane)];
      if (a == inactive) continue;
      for (std::int64_t w = a / bank_bytes; w <= (a + elem_size - 1) / bank_bytes && n < 64; ++w)
        words[n++] = w;
    }
    if (n == 0) continue;  // a group with no active lane is not issued
    std::sort(words.begin(), words.begin() + n);
    n = static_cast<int>(std::unique(words.begin(), words.begin() + n) - words.begin());
    // Same word = broadcast (free); distinct words in one bank serialise.
    std::array<int, banks> per_bank{};
    for (int k = 0; k < n; ++k) ++per_bank[static_cast<std::size_t>(words[k] % banks)];
    cost.wavefronts += *std::max_element(per_bank.begin(), per_bank.end());
    cost.min_wavefronts += 1;
  }
  return cost;
}

double access_totals::sectors_per_request() const noexcept {
  return requests ? static_cast<double>(sectors) / static_cast<double>(requests) : 0.0;
}

double access_totals::efficiency() const noexcept {
  return sectors ? static_cast<double>(bytes_used) / (32.0 * static_cast<double>(sectors)) : 0.0;
}

double access_totals::ways() const noexcept {
  return min_wavefronts ? static_cast<double>(wavefronts) / static_cast<double>(min_wavefronts) : 0.0;
}

const access_totals& prediction::operator[](access a) const noexcept {
  switch (a) {
    case access::global_load: return global_load;
    case access::smem_store: return smem_store;
    case access::smem_load: return smem_load;
    case access::global_store: return global_store;
  }
  return global_load;
}

access_totals& prediction::operator[](access a) noexcept {
  return const_cast<access_totals&>(static_cast<const prediction&>(*this)[a]);
}

}  // namespace xpose::model
