#include "ui/format.h"

#include <cmath>
#include <cstdio>

namespace tycoon::ui {

namespace {

std::string printf_string(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

// 1234567 -> "1,234,567".
std::string with_commas(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n > 0 && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  if (v < 0) out.insert(out.begin(), '-');
  return out;
}

// "12.3k", "4.56M", "7.89B" with three significant digits; below 1000 as is.
std::string si_short(double x) {
  double a = std::fabs(x);
  const char* suffix = "";
  double v = x;
  if (a >= 1e12) {
    v = x / 1e12;
    suffix = "T";
  } else if (a >= 1e9) {
    v = x / 1e9;
    suffix = "B";
  } else if (a >= 1e6) {
    v = x / 1e6;
    suffix = "M";
  } else if (a >= 1e3) {
    v = x / 1e3;
    suffix = "k";
  }
  double av = std::fabs(v);
  const char* fmt = av >= 100 ? "%.0f%s" : av >= 10 ? "%.1f%s" : "%.2f%s";
  if (*suffix == '\0') {
    if (av < 0.005) return "0";
    fmt = av >= 100 ? "%.0f%s" : av >= 10 ? "%.1f%s" : "%.2f%s";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v, suffix);
  return buf;
}

}  // namespace

std::string fmt_usd(double usd) {
  if (!std::isfinite(usd)) return "$—";
  double a = std::fabs(usd);
  std::string out = usd < 0 ? "-$" : "$";
  if (a < 100) {
    out += printf_string("%.2f", a);
  } else if (a < 100000) {
    out += with_commas(std::llround(a));
  } else {
    out += si_short(a);
  }
  return out;
}

std::string fmt_usd_signed(double usd) {
  std::string out = fmt_usd(usd);
  if (usd >= 0) out.insert(out.begin(), '+');
  return out;
}

std::string fmt_usd_per_mtok(double p) {
  if (p < 1) return printf_string("$%.3f", p);
  return printf_string("$%.2f", p);
}

std::string fmt_usd_per_gpu_hour(double usd) { return printf_string("$%.2f/GPU-h", usd); }

std::string fmt_pct(double share, int decimals) {
  if (!std::isfinite(share)) return "—";
  char fmt[16];
  std::snprintf(fmt, sizeof fmt, "%%.%df%%%%", decimals);
  std::string out = printf_string(fmt, share * 100.0);
  // A share that rounds to zero reads "0%", never "-0%".
  if (out.starts_with("-") && out.find_first_not_of("-0.%") == std::string::npos) out.erase(0, 1);
  return out;
}

std::string fmt_pct_signed(double share, int decimals) {
  std::string out = fmt_pct(share, decimals);
  if (share >= 0) out.insert(out.begin(), '+');
  return out;
}

std::string fmt_tokens(double tokens) { return si_short(tokens) + " tok"; }
std::string fmt_tok_per_s(double v) { return si_short(v) + " tok/s"; }
std::string fmt_req_per_s(double v) { return (v < 10 ? printf_string("%.2f", v) : si_short(v)) + " req/s"; }

std::string fmt_seconds(double s) {
  if (!std::isfinite(s)) return "—";
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a < 1e-3) return printf_string("%.1f µs", s * 1e6);
  if (a < 1) return printf_string(a < 0.01 ? "%.2f ms" : a < 0.1 ? "%.1f ms" : "%.0f ms", s * 1e3);
  if (a < 120) return printf_string("%.2f s", s);
  return printf_string("%.1f min", s / 60);
}

std::string fmt_bytes(double b) { return printf_string(b >= 100e9 ? "%.0f GB" : "%.1f GB", b / 1e9); }
std::string fmt_bytes_per_s(double b) { return printf_string("%.2f TB/s", b / 1e12); }
std::string fmt_flop_per_s(double f) { return printf_string("%.0f TFLOP/s", f / 1e12); }
std::string fmt_count(double n) {
  if (std::fabs(n) < 1000 && std::fabs(n - std::round(n)) < 1e-9) return std::to_string(std::llround(n));
  return si_short(n);
}

std::string fmt_game_time(long long hour) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "Day %lld, %02lld:00", hour / 24 + 1, hour % 24);
  return buf;
}

std::string fmt_hour_short(long long hour) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "d%lld %02lld:00", hour / 24 + 1, hour % 24);
  return buf;
}

std::string id_label(long long id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "#%lld", id);
  return buf;
}

std::string fmt_factor(double f) { return printf_string("×%.2f", f); }

std::string_view provenance_label(perf::Provenance p) {
  switch (p) {
    case perf::Provenance::kMeasured:
      return "measured";
    case perf::Provenance::kInterpolated:
      return "interpolated";
    case perf::Provenance::kExtrapolated:
      return "extrapolated";
    case perf::Provenance::kFittedToPublished:
      return "fitted to published";
    case perf::Provenance::kDatasheet:
      return "datasheet";
  }
  return "?";
}

}  // namespace tycoon::ui
