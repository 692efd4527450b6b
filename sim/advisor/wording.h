// Numbers as the advisor writes them in its proposals, check notes and debrief.
#pragma once

#include <cstdio>
#include <string>

namespace tycoon::advisor {

// A share as a whole percentage: 0.237 -> "24%".
inline std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

// A speedup factor: 1.0523 -> "x1.052".
inline std::string factor(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "x%.3f", x);
  return buf;
}

}  // namespace tycoon::advisor
