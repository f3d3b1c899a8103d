// Argument helpers of the host-side benchmark programs (bench/cpu_ab.cpp, bench/hptt_compare.cpp).
#pragma once

#include <cstdlib>
#include <vector>

/// "37x230x410" or "2,0,1" as numbers (the first character that is not a digit, 'x' or ',' ends it).
inline std::vector<long long> parse_list(const char* s) {
  std::vector<long long> v;
  while (*s) {
    char* end = nullptr;
    v.push_back(std::strtoll(s, &end, 10));
    if (end == s) break;
    s = end;
    if (*s == ',' || *s == 'x') ++s;
  }
  return v;
}
