// The fitter recovers known efficiencies from synthetic kernel rows, and its curves are monotone;
// validation classes rows by what bounds them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "calibration/fit/fit_profile.h"
#include "calibration/fit/validate.h"
#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"

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
      rows.push_back(row({{"op", "gemm"},
                          {"dtype", "bf16"},
                          {"M", m},
                          {"N", n},
                          {"K", k},
                          {"median_s", std::max(flop / (0.7 * P), bytes / (0.8 * B))}}));
    }
  }
  auto rep = calibration::fit_profile(rows, h200(), "synthetic");
  CHECK(rep.profile.gemm_memory_eff(1e8) == doctest::Approx(0.8).epsilon(0.01));
  CHECK(rep.profile.gemm_compute_eff[0](16384) == doctest::Approx(0.7).epsilon(0.01));
  CHECK(rep.profile.max_measured_tokens == 16384);
}

TEST_CASE("PyTorch eager op cost: median and slowest per-kernel host cost, one process and TP groups apart") {
  // Rows that say where they were measured count; an older row without `measured_in` (timed after
  // a profiler session slowed the host) does not.
  std::vector<calibration::Row> rows;
  for (double us : {12.0, 14.0, 30.0}) {
    rows.push_back(
        row({{"op", "host_layer_real"}, {"tp", 1}, {"per_kernel_s", us * 1e-6}, {"measured_in", "e2e_proc.py"}}));
  }
  for (double us : {16.0, 20.0}) {
    rows.push_back(
        row({{"op", "host_layer_real"}, {"tp", 2}, {"per_kernel_s", us * 1e-6}, {"measured_in", "multi_gpu.py"}}));
  }
  rows.push_back(row({{"op", "host_layer_real"}, {"tp", 1}, {"per_kernel_s", 99e-6}}));
  rows.push_back(row({{"op", "launch_eager"}, {"num_kernels", 1000}, {"per_kernel_s", 9.8e-6}}));
  auto rep = calibration::fit_profile(rows, h200(), "synthetic");
  const auto& p = rep.profile;
  CHECK(p.python_op_launch_s == doctest::Approx(14e-6));  // median of 12, 14, 30
  CHECK(p.python_op_launch_slowest_s == doctest::Approx(30e-6));
  CHECK(p.python_op_launch_tp_s == doctest::Approx(18e-6));  // median of 16, 20
  CHECK(p.python_op_launch_tp_slowest_s == doctest::Approx(20e-6));
  CHECK(rep.eager_launch_rows == 5);
  // Engines that launch their own kernels pay the trivial-kernel probe, not Python's op cost.
  CHECK(p.eager_launch_s == doctest::Approx(9.8e-6));
}

TEST_CASE("QK-norm and KV-write rows get their own curves") {
  // Per-head norms at 0.55 TB/s and the KV write at 1.4 TB/s (about what the H200 measured),
  // well below the contiguous elementwise curve: each is fitted apart from it.
  std::vector<calibration::Row> rows;
  for (double bytes = 1 << 24; bytes <= (1 << 30); bytes *= 4) {
    rows.push_back(row({{"op", "copy_d2d"}, {"bytes", bytes}, {"median_s", bytes / 4.2e12}}));
    rows.push_back(row({{"op", "qk_norm"}, {"bytes", bytes}, {"median_s", bytes / 0.55e12}}));
    rows.push_back(row({{"op", "kv_write"}, {"bytes", bytes}, {"median_s", bytes / 1.4e12}}));
  }
  auto rep = calibration::fit_profile(rows, h200(), "synthetic");
  const double bw = h200().hbm_bandwidth_bytes_per_s;
  CHECK(rep.profile.qk_norm_memory_eff(1 << 28) == doctest::Approx(0.55e12 / bw).epsilon(0.01));
  CHECK(rep.profile.kv_write_memory_eff(1 << 28) == doctest::Approx(1.4e12 / bw).epsilon(0.01));
  CHECK(rep.profile.elementwise_memory_eff(1 << 28) == doctest::Approx(4.2e12 / bw).epsilon(0.01));
}

TEST_CASE("unfused MoE routing: the graphed expert block minus its grouped GEMMs") {
  // At 4096 tokens (16384 routed rows, hidden 2880): block 3.9 ms, GEMMs 2.0 + 1.0 ms. Without
  // copy rows the isolated-call overhead is 0, so the routing keeps 0.9 ms minus the router GEMM
  // and the activation as the fitted curves predict them.
  std::vector<calibration::Row> rows;
  auto moe_row = [](const char* op, double s) {
    return row({{"op", op},
                {"tokens", 4096},
                {"rows", 16384},
                {"num_experts", 128},
                {"top_k", 4},
                {"hidden", 2880},
                {"expert_dim", 2880},
                {"experts_touched", 128},
                {"median_s", s}});
  };
  rows.push_back(moe_row("moe_layer_graph", 3.9e-3));
  rows.push_back(moe_row("moe_gate_up_graph", 2.0e-3));
  rows.push_back(moe_row("moe_down_graph", 1.0e-3));
  auto rep = calibration::fit_profile(rows, h200(), "synthetic");
  const auto& p = rep.profile;
  const double bw = h200().hbm_bandwidth_bytes_per_s;
  double router =
      std::max(2.0 * 4096 * 128 * 2880 / (h200().peak_flop_per_s(Precision::kBf16) * p.gemm_compute_eff[0](4096)),
               (128 * 2880 * 2.0 + 4096 * 2880 * 2.0 + 4096 * 128 * 2.0) /
                   (bw * p.gemm_memory_eff(128 * 2880 * 2.0 + 4096 * 2880 * 2.0 + 4096 * 128 * 2.0)));
  double act_bytes = 16384.0 * 2880 * 2 * 3;
  double act = act_bytes / (bw * p.activation_unfused_memory_eff(act_bytes));
  double bytes = perf::moe_route_bytes(4096, 16384, 2880);
  CHECK(bytes == doctest::Approx((4 * 16384.0 + 2 * 4096.0) * 2880 * 2));
  CHECK(bytes / (bw * p.moe_route_memory_eff(bytes)) == doctest::Approx(0.9e-3 - router - act).epsilon(1e-6));
}

TEST_CASE("validation: a row is host-bound when launches at the slowest measured host speed outlast the GPU") {
  // Llama-3.1-8B-shaped reference rows, eager prefill at TP 1. With PyTorch ops at 14 us (slowest
  // 18 us), a 128-token prefill's ~930 launches (13-17 ms) outlast its GPU work; a 16k prefill's
  // do not. The measured times are placeholders: the classification never reads them.
  static const data::Catalog catalog = data::load_catalog(TYCOON_SOURCE_DIR);
  auto e2e = [](double prompt, double measured) {
    return row({{"op", "e2e_prefill"},
                {"model", "llama-3.1-8b"},
                {"hidden", 4096},
                {"vocab", 128256},
                {"num_layers", 32},
                {"num_q_heads", 32},
                {"num_kv_heads", 8},
                {"head_dim", 128},
                {"intermediate", 14336},
                {"tp", 1},
                {"cuda_graph", false},
                {"batch", 1},
                {"prompt_len", prompt},
                {"median_s", measured}});
  };
  auto profile = calibration::fit_profile({}, h200(), "synthetic").profile;
  profile.python_op_launch_s = 14e-6;
  profile.python_op_launch_slowest_s = 18e-6;
  auto rep = calibration::validate({e2e(128, 1.0), e2e(16384, 1.0)}, profile, catalog, h200());
  REQUIRE(rep.points.size() == 2);
  CHECK(rep.points[0].host_bound);
  CHECK_FALSE(rep.points[1].host_bound);
  CHECK(rep.host_bound.rows == 1);
  CHECK(rep.gpu_bound.rows == 1);
  // Prediction, not measurement: the errors are the predictions against the placeholder 1 s.
  CHECK(rep.gpu_bound.max_abs == doctest::Approx(std::fabs(rep.points[1].error())));
}

TEST_CASE("a calibration profile whose slowest host cost is below its typical one is refused") {
  auto p = calibration::fit_profile({}, h200(), "synthetic").profile;
  auto j = perf::to_json(p);
  j["python_op_launch_slowest_s"] = p.python_op_launch_s / 2;
  auto path = std::filesystem::temp_directory_path() / "tycoon_bad_profile.json";
  {
    std::ofstream f(path);
    f << j.dump();
  }
  CHECK_THROWS_AS(perf::load_calibration_profile(path), data::LoadError);
  j["python_op_launch_slowest_s"] = p.python_op_launch_s;  // equal is fine
  {
    std::ofstream f(path);
    f << j.dump();
  }
  CHECK_NOTHROW(perf::load_calibration_profile(path));
  std::filesystem::remove(path);
}
