// The fitter recovers known efficiencies from synthetic kernel rows, and its curves are monotone.
#include <doctest/doctest.h>

#include "calibration/fit/fit_profile.h"
#include "sim/data/catalog.h"

using namespace tycoon;

namespace {

calibration::Row row(nlohmann::json j) {
  calibration::Row r;
  r.value = std::move(j);
  r.file = "synthetic.jsonl";
  return r;
}

const data::Accelerator& h200() {
  static const data::Catalog c = data::load_catalog(TYCOON_SOURCE_DIR);
  return c.accelerator("h200");
}

}  // namespace

TEST_CASE("monotone_curve pools noise into a non-decreasing curve") {
  // 0.5, 0.4 (noise), 0.7 at sizes 1, 2, 4: the violating pair pools to 0.45.
  auto c = calibration::monotone_curve({{1, 0.5}, {2, 0.4}, {4, 0.7}});
  CHECK(c(1) == doctest::Approx(0.45));
  CHECK(c(2) == doctest::Approx(0.45));
  CHECK(c(4) == doctest::Approx(0.7));
  // Piecewise linear in log2(size): halfway between 2 and 4 in log space.
  CHECK(c(std::sqrt(8.0)) == doctest::Approx(0.575));
  // Held flat outside the measured range, and the range is reported.
  CHECK(c(1024) == doctest::Approx(0.7));
  CHECK_FALSE(c.covers(1024));
}

TEST_CASE("fit recovers the copy bandwidth and the per-kernel floor by least squares") {
  // Synthetic copies: t = 2.5 us + bytes / 4.2 TB/s, exactly.
  std::vector<calibration::Row> rows;
  for (double bytes = 1 << 20; bytes <= 8e9; bytes *= 4) {
    rows.push_back(row({{"op", "copy_d2d"}, {"bytes", bytes}, {"median_s", 2.5e-6 + bytes / 4.2e12}}));
  }
  auto rep = calibration::fit_profile(rows, h200(), "synthetic");
  CHECK(rep.copy_bandwidth_bytes_per_s == doctest::Approx(4.2e12).epsilon(1e-6));
  CHECK(rep.profile.kernel_floor_s == doctest::Approx(2.5e-6).epsilon(1e-6));
  // Large copies approach 4.2/4.8 = 87.5% of the datasheet bandwidth.
  CHECK(rep.profile.elementwise_memory_eff(8e9) == doctest::Approx(0.875).epsilon(0.01));
}

TEST_CASE("fit separates memory-bound and compute-bound GEMMs") {
  // A chip that reaches 80% of bandwidth and 70% of the bf16 peak: t = max(flop/(0.7 P), bytes/(0.8 B)).
  const double P = 989e12, B = 4.8e12;
  std::vector<calibration::Row> rows;
  for (double m : {1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0}) {
    for (auto [n, k] : {std::pair{6144.0, 4096.0}, {4096.0, 14336.0}, {28672.0, 4096.0}}) {
      double flop = 2 * m * n * k, bytes = n * k * 2 + m * k * 2 + m * n * 2;
      rows.push_back(row({{"op", "gemm"}, {"dtype", "bf16"}, {"M", m}, {"N", n}, {"K", k},
                          {"median_s", std::max(flop / (0.7 * P), bytes / (0.8 * B))}}));
    }
  }
  auto rep = calibration::fit_profile(rows, h200(), "synthetic");
  CHECK(rep.profile.gemm_memory_eff(1e8) == doctest::Approx(0.8).epsilon(0.01));
  CHECK(rep.profile.gemm_compute_eff[0](16384) == doctest::Approx(0.7).epsilon(0.01));
  CHECK(rep.profile.max_measured_tokens == 16384);
}
