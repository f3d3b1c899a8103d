// The CPU harness's "the ceiling is not the fastest => the measurement is broken"
// check, kept free of the harness so that a unit test can drive it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace xbench {

struct measured_rate {
  std::string variant;
  double gbps;  ///< <= 0 when not timed
};

/// One message per variant of a case that beats the ceiling (memcpy of the same
/// bytes) by more than `slack` (relative): a transpose cannot move bytes faster than
/// a copy, so either the ceiling was disturbed (another thread pool spinning, a
/// preempted thread) or the measurement is off. Also flags an untimed ceiling.
inline std::vector<std::string> ceiling_violations(const std::string& case_label, const std::string& ceiling,
                                                   const std::vector<measured_rate>& rates, double slack = 0.10) {
  std::vector<std::string> out;
  double top = -1;
  for (const auto& r : rates)
    if (r.variant == ceiling) top = r.gbps;
  if (top <= 0) {
    bool any = false;
    for (const auto& r : rates) any = any || (r.variant != ceiling && r.gbps > 0);
    if (any) out.push_back("measurement is broken: " + ceiling + " (" + case_label + ") was not timed");
    return out;
  }
  for (const auto& r : rates)
    if (r.variant != ceiling && r.gbps > top * (1 + slack)) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2f", r.gbps / top);
      out.push_back("measurement is broken: " + ceiling + " (" + case_label + ") is slower than " + r.variant +
                    " (" + ratio + "x): the ceiling was disturbed");
    }
  return out;
}

}  // namespace xbench
