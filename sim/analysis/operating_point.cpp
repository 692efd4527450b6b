// How a sweep picks each series' operating point (sweep_report.h): the targets a figure misses,
// the monotone interpolant between measured concurrencies, and the pick itself.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/analysis/sweep_report.h"

namespace tycoon::analysis {

namespace {

constexpr double kNaNValue = std::numeric_limits<double>::quiet_NaN();

std::string number_text(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A target that a figure crosses as concurrency grows: a floor (interactivity falls) or a ceiling
// (latencies rise).
struct CrossingTarget {
  Metric metric;
  double bound = 0;
  bool floor = false;
  const char* name;
  const char* unit;
};

std::vector<CrossingTarget> crossing_targets(const SweepSpec& spec) {
  std::vector<CrossingTarget> out;
  if (spec.target_p90_tok_per_s_per_user) {
    out.push_back({Metric::kP90InteractivityTokPerSPerUser, *spec.target_p90_tok_per_s_per_user, true,
                   "P90 interactivity", "tok/s/user"});
  }
  if (spec.target_max_p90_ttft_ms)
    out.push_back({Metric::kTtftP90Ms, *spec.target_max_p90_ttft_ms, false, "P90 TTFT", "ms"});
  if (spec.target_max_p99_ttft_ms)
    out.push_back({Metric::kTtftP99Ms, *spec.target_max_p99_ttft_ms, false, "P99 TTFT", "ms"});
  if (spec.target_max_p90_tpot_ms)
    out.push_back({Metric::kTpotP90Ms, *spec.target_max_p90_tpot_ms, false, "P90 TPOT", "ms"});
  return out;
}

// The value a target is judged on: the mean, or with `conservative` the interval's far end.
double judged_value(const Estimate& e, bool floor, bool conservative) {
  if (!conservative) return e.mean;
  double h = e.total_half_width();
  if (!std::isfinite(h)) h = 0;
  return floor ? e.mean - h : e.mean + h;
}

bool meets_bound(const CrossingTarget& t, double v) { return t.floor ? v >= t.bound : v <= t.bound; }

double spec_target_margin(const SweepSpec& s) { return s.target_gross_margin.value_or(kNaNValue); }

}  // namespace

std::string OperatingPoint::pick_label() const {
  return std::string(interpolated ? "interpolated at target" : "grid") + (marginal.empty() ? "" : ", marginal");
}

std::vector<std::string> target_misses(const SweepSpec& spec, const std::array<Estimate, kNumMetrics>& stats,
                                       double failed_share, bool conservative) {
  std::vector<std::string> out;
  for (const auto& t : crossing_targets(spec)) {
    const Estimate& e = stats[static_cast<std::size_t>(t.metric)];
    const double v = judged_value(e, t.floor, conservative);
    if (meets_bound(t, v)) continue;
    // "P90 TTFT 812.0 ms > 500.0 ms", "P90 interactivity 41.3 < 50.0 tok/s/user"; conservatively
    // with the interval that made it miss.
    const double h = e.total_half_width();
    const std::string pm = conservative && std::isfinite(h) ? " ± " + number_text(h, 1) : std::string();
    const std::string unit = std::string(" ") + t.unit;
    const std::string text = std::string(t.name) + " " + number_text(e.mean, 1) + (t.floor ? "" : unit) + pm +
                             (t.floor ? " < " : " > ") + number_text(t.bound, 1) + unit;
    out.push_back(text);
  }
  if (spec.target_max_failed_share && !(failed_share <= *spec.target_max_failed_share)) {
    out.push_back("failed requests " + number_text(100 * failed_share, 1) + "% > " +
                  number_text(100 * *spec.target_max_failed_share, 1) + "%");
  }
  if (!std::isfinite(stats[static_cast<std::size_t>(Metric::kOutputTokPerSPerGpu)].mean)) {
    out.push_back("no completed requests");
  }
  return out;
}

double pchip(std::span<const double> xs, std::span<const double> ys, double x) {
  const std::size_t n = xs.size();
  if (n == 0 || ys.size() != n || !(x >= xs.front() && x <= xs.back())) return kNaNValue;
  if (n == 1) return ys[0];
  std::size_t k = 0;  // the interval [xs[k], xs[k+1]] holding x
  while (k + 2 < n && x > xs[k + 1]) ++k;
  const double h = xs[k + 1] - xs[k];
  const double y0 = ys[k], y1 = ys[k + 1];
  if (!std::isfinite(y0) || !std::isfinite(y1)) return kNaNValue;
  auto secant = [&](std::size_t i) { return (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]); };
  // Fritsch-Carlson slopes: zero at a local extremum, else a weighted harmonic mean of the two
  // secants (Fritsch & Butland's form, which keeps each piece monotone); one-sided at the ends.
  auto slope = [&](std::size_t i) {
    const bool left = i > 0 && std::isfinite(ys[i - 1]);
    const bool right = i + 1 < n && std::isfinite(ys[i + 1]);
    if (left && right) {
      const double d0 = secant(i - 1), d1 = secant(i);
      if (d0 * d1 <= 0) return 0.0;
      const double h0 = xs[i] - xs[i - 1], h1 = xs[i + 1] - xs[i];
      const double w0 = 2 * h1 + h0, w1 = h1 + 2 * h0;
      return (w0 + w1) / (w0 / d0 + w1 / d1);
    }
    if (right) return secant(i);
    if (left) return secant(i - 1);
    return 0.0;
  };
  const double m0 = slope(k), m1 = slope(k + 1);
  const double t = (x - xs[k]) / h;
  const double t2 = t * t, t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * h * m0 + (-2 * t3 + 3 * t2) * y1 + (t3 - t2) * h * m1;
}

std::vector<OperatingPoint> operating_points(const SweepData& d, const std::vector<Group>& groups) {
  const auto& spec = *d.spec;
  const bool conservative = spec.conservative;
  const std::size_t num_prices = spec.prices.size();
  const auto targets = crossing_targets(spec);
  std::vector<OperatingPoint> out;
  for (std::size_t s = 0; s < d.sweep->series.size(); ++s) {
    OperatingPoint op;
    op.series = s;
    // This series' groups at the first price, by increasing concurrency (groups are ordered so;
    // the same concurrency at price p is the group p places later).
    std::vector<std::size_t> gs;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].series == s && groups[g].price == 0) gs.push_back(g);
    }
    auto by_price = [&](std::size_t g0) {
      std::vector<std::array<Estimate, kNumMetrics>> st;
      for (std::size_t p = 0; p < num_prices; ++p) st.push_back(groups[g0 + p].stats);
      return st;
    };
    double best = -std::numeric_limits<double>::infinity();
    std::vector<bool> ok(gs.size(), false);
    for (std::size_t k = 0; k < gs.size(); ++k) {
      const Group& g = groups[gs[k]];
      const auto misses = target_misses(spec, g.stats, g.failed_share(), conservative);
      if (!misses.empty()) {
        std::string why = std::to_string(g.concurrency) + " users: ";
        for (std::size_t i = 0; i < misses.size(); ++i) why += (i ? "; " : "") + misses[i];
        op.rejected.push_back(why);
        op.rejected_for_interactivity_only.push_back(
            misses.size() == 1 && spec.target_p90_tok_per_s_per_user &&
            !(judged_value(g[Metric::kP90InteractivityTokPerSPerUser], true, conservative) >=
              *spec.target_p90_tok_per_s_per_user));
        continue;
      }
      ok[k] = true;
      const double tput = g[Metric::kOutputTokPerSPerGpu].mean;
      if (tput > best) {
        best = tput;
        op.group = gs[k];
        op.concurrency = g.concurrency;
        op.stats = by_price(gs[k]);
        op.provenance = g.provenance;
        op.failed_share = g.failed_share();
      }
    }
    // Between a measured concurrency that meets every target and the next one, which misses: the
    // highest concurrency where every crossing target still holds on the monotone interpolant
    // (bisection), every figure interpolated there.
    if (!targets.empty() && gs.size() > 1) {
      std::vector<double> xs;
      for (std::size_t g : gs) xs.push_back(std::log2(static_cast<double>(groups[g].concurrency)));
      auto series_of = [&](std::size_t price, std::size_t m) {
        std::vector<double> ys;
        for (std::size_t g : gs) ys.push_back(groups[g + price].stats[m].mean);
        return ys;
      };
      auto half_widths_of = [&](std::size_t m) {
        std::vector<double> hs;
        for (std::size_t g : gs) {
          const double h = groups[g].stats[m].total_half_width();
          hs.push_back(std::isfinite(h) ? h : 0.0);
        }
        return hs;
      };
      std::vector<std::vector<double>> target_means, target_half_widths;
      for (const auto& t : targets) {
        target_means.push_back(series_of(0, static_cast<std::size_t>(t.metric)));
        target_half_widths.push_back(half_widths_of(static_cast<std::size_t>(t.metric)));
      }
      // The targets missed at log2-concurrency x (k: the bracket's lower knot), by name.
      auto missed_at = [&](double x, std::size_t k) {
        std::vector<std::string> missed;
        const double w = (x - xs[k]) / (xs[k + 1] - xs[k]);
        for (std::size_t i = 0; i < targets.size(); ++i) {
          double v = pchip(xs, target_means[i], x);
          if (conservative) {
            const double h = (1 - w) * target_half_widths[i][k] + w * target_half_widths[i][k + 1];
            v = targets[i].floor ? v - h : v + h;
          }
          if (!meets_bound(targets[i], v)) missed.push_back(targets[i].name);
        }
        return missed;
      };
      for (std::size_t k = 0; k + 1 < gs.size(); ++k) {
        if (!ok[k] || ok[k + 1]) continue;
        const auto missed_above = missed_at(xs[k + 1], k);
        if (missed_above.empty()) continue;  // the upper knot misses on something that is not crossed
        double lo = xs[k], hi = xs[k + 1];
        for (int it = 0; it < 100; ++it) {  // a target is crossed within [lo, hi]: halve it
          const double mid = 0.5 * (lo + hi);
          (missed_at(mid, k).empty() ? lo : hi) = mid;
        }
        const double x = lo;
        const auto binding = missed_at(hi, k);
        const double w = (x - xs[k]) / (xs[k + 1] - xs[k]);  // linear weight for spreads
        const Group& a = groups[gs[k]];
        const Group& b = groups[gs[k + 1]];
        const auto prov = perf::weaker(a.provenance, b.provenance);
        std::vector<std::array<Estimate, kNumMetrics>> st(num_prices);
        for (std::size_t p = 0; p < num_prices; ++p) {
          for (std::size_t m = 0; m < kNumMetrics; ++m) {
            const Estimate& ea = groups[gs[k] + p].stats[m];
            const Estimate& eb = groups[gs[k + 1] + p].stats[m];
            Estimate e;
            e.mean = pchip(xs, series_of(p, m), x);
            auto lerp = [&](double u, double v) { return (1 - w) * u + w * v; };
            e.stddev = lerp(ea.stddev, eb.stddev);
            e.half_width_95 = lerp(ea.half_width_95, eb.half_width_95);
            e.run_half_width = lerp(ea.run_half_width, eb.run_half_width);
            if (d.errors) e.model_half_width = model_half_width(static_cast<Metric>(m), e.mean, d.errors->of(prov));
            e.min = std::min(ea.min, eb.min);
            e.max = std::max(ea.max, eb.max);
            e.n = std::min(ea.n, eb.n);
            st[p][m] = e;
          }
          if (d.errors) set_output_price_model_half_width(st[p], spec_target_margin(spec), d.errors->of(prov));
        }
        const double share = (1 - w) * a.failed_share() + w * b.failed_share();
        // The interpolated figures' own intervals may differ a little from the lerped ones the
        // bisection used: the pick is judged on the mean there, and on its interval conservatively.
        if (!target_misses(spec, st[0], share, false).empty()) continue;
        const double tput = st[0][static_cast<std::size_t>(Metric::kOutputTokPerSPerGpu)].mean;
        if (!(tput > best)) continue;
        best = tput;
        op.group = gs[k];
        op.upper_group = gs[k + 1];
        op.interpolated = true;
        op.binding = binding;
        op.concurrency = std::exp2(x);
        op.stats = std::move(st);
        op.provenance = prov;
        op.failed_share = share;
      }
    }
    // Marginal: a target the pick meets on its mean that lies within the figure's interval (the
    // targets an interpolated pick sits on are so by construction, and its label says so).
    if (op.found()) {
      for (const auto& t : targets) {
        if (std::find(op.binding.begin(), op.binding.end(), std::string(t.name)) != op.binding.end()) continue;
        const Estimate& e = op.at(t.metric);
        const double h = e.total_half_width();
        if (!std::isfinite(h) || !(std::abs(e.mean - t.bound) <= h)) continue;
        op.marginal.push_back(std::string(t.name) + " " + number_text(e.mean, 1) + " ± " + number_text(h, 1) + " " +
                              t.unit + " vs " + number_text(t.bound, 1) + " " + t.unit);
      }
    }
    out.push_back(std::move(op));
  }
  return out;
}

std::vector<OperatingPoint> ranked_operating_points(const SweepData& d, const std::vector<Group>& groups) {
  auto ops = operating_points(d, groups);
  std::stable_sort(ops.begin(), ops.end(), [&](const OperatingPoint& a, const OperatingPoint& b) {
    const double ta = a.found() ? a.at(Metric::kOutputTokPerSPerGpu).mean : -1;
    const double tb = b.found() ? b.at(Metric::kOutputTokPerSPerGpu).mean : -1;
    return ta > tb;
  });
  return ops;
}

}  // namespace tycoon::analysis
