// The sweep's resume journal is input: `sweep --resume` checks each line against the sweep it
// resumes instead of trusting it: a journal edited or damaged by hand must not become results.
#include <doctest/doctest.h>

#include <string>

#include "sim/analysis/sweep_journal.h"
#include "sim/core/version.h"
#include "sim/data/json_reader.h"
#include "tests/test_analysis_support.h"

using namespace tycoon;
using namespace tycoon::analysis;

namespace {

struct JournalFixture {
  SweepSpec spec = parse_sweep_spec(analysis_test::tiny_spec({1}), "tiny.json");
  ExpandedSweep sweep = expand_sweep(spec, analysis_test::catalog());

  // A plausible finished point: what the simulator writes for the first point (1 GPU).
  static PointPerf good_perf() {
    PointPerf p;
    p.output_tok_per_s_per_gpu = 900;
    p.input_tok_per_s_per_gpu = 3600;
    p.p90_interactivity_tok_per_s_per_user = 120;
    p.ttft_s = {0.02, 0.018, 0.03, 0.05};
    p.tpot_s = {0.008, 0.008, 0.009, 0.01};
    p.e2e_s = {0.5, 0.5, 0.6, 0.7};
    // Counts that agree with the throughputs (check_point_perf): 900 tok/s x 1 GPU x 2.5 s = 2250
    // output tokens; input 3600 tok/s = 900 x 9000 / 2250.
    p.requests_completed = 8;
    p.input_tokens = 9000;
    p.cached_input_tokens = 0;
    p.output_tokens = 2250;
    p.simulated_time_s = 2.5;
    p.mean_batch_size = 1.9;
    p.num_gpus = 1;
    return p;
  }
  std::string line(const PointPerf& p, std::size_t point = 0) const {
    return nlohmann::json{{"hash", sweep.points[point].hash}, {"perf", p.to_json()}}.dump();
  }
  // The error's text for a journal, "" when it is accepted.
  std::string error(const std::string& text) const {
    try {
      parse_sweep_journal(text, "points.jsonl", sweep, spec);
    } catch (const data::LoadError& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace

TEST_CASE("journal: finished points are read back exactly; a torn last line is dropped, not an error") {
  JournalFixture f;
  REQUIRE(f.sweep.points.size() >= 2);
  const auto p = JournalFixture::good_perf();
  const std::string full = f.line(p, 0) + "\n" + f.line(p, 1) + "\n";
  auto j = parse_sweep_journal(full, "points.jsonl", f.sweep, f.spec);
  CHECK(j.points.size() == 2);
  CHECK_FALSE(j.torn_tail);
  CHECK(j.points.at(f.sweep.points[1].hash).output_tok_per_s_per_gpu == 900);  // exact: doubles round-trip
  // The run was killed while writing the second line: the first stays, the second runs again.
  const std::string torn = f.line(p, 0) + "\n" + f.line(p, 1).substr(0, 40);
  j = parse_sweep_journal(torn, "points.jsonl", f.sweep, f.spec);
  CHECK(j.points.size() == 1);
  CHECK(j.torn_tail);
}

TEST_CASE("journal: lines of another sweep, impossible figures and damage before the last line are refused") {
  JournalFixture f;
  const auto good = JournalFixture::good_perf();
  // A point this sweep does not have (another spec's journal copied in).
  std::string other = f.line(good);
  other.replace(other.find(f.sweep.points[0].hash), 16, "0123456789abcdef");
  CHECK(f.error(other + "\n").find("points.jsonl:1: /hash: '0123456789abcdef' is no point of this sweep") == 0);

  auto with = [&](auto change) {
    PointPerf p = good;
    change(p);
    return f.error(f.line(good, 1) + "\n" + f.line(p) + "\n");
  };
  CHECK(with([](PointPerf& p) { p.output_tok_per_s_per_gpu = -5; }) ==
        "points.jsonl:2: /perf/output_tok_per_s_per_gpu: must be a finite number >= 0");
  CHECK(with([](PointPerf& p) { p.cached_input_tokens = p.input_tokens + 1; }) ==
        "points.jsonl:2: /perf/cached_input_tokens: more cached input tokens than input tokens");
  CHECK(with([](PointPerf& p) { p.ttft_s.p90 = 10; }) ==
        "points.jsonl:2: /perf/ttft_s: percentiles out of order (p50 <= p90 <= p99)");
  CHECK(with([](PointPerf& p) { p.num_gpus = 64; }) ==
        "points.jsonl:2: /perf/num_gpus: is 64, the point's deployment has 1");
  CHECK(with([](PointPerf& p) { p.requests_failed = -1; }) == "points.jsonl:2: /perf/requests_failed: must be >= 0");
  // Figures that contradict the point's own counts. Ten times the throughput claims
  // 22,500 tokens in 2.5 s on 1 GPU; the point generated 2,250.
  CHECK(with([](PointPerf& p) {
          p.output_tok_per_s_per_gpu *= 10;
          p.input_tok_per_s_per_gpu *= 10;
        }) ==
        "points.jsonl:2: /perf/output_tok_per_s_per_gpu: 9000 tok/s/GPU over 1 GPUs and 2.5 s is 22500 "
        "tokens, the point generated 2250 output tokens");
  // The input throughput flows in the same window: output throughput x input / output tokens.
  CHECK(
      with([](PointPerf& p) { p.input_tok_per_s_per_gpu = 7200; })
          .starts_with(
              "points.jsonl:2: /perf/input_tok_per_s_per_gpu: is 7200, the output throughput scaled by input / output "
              "tokens is 3600"));
  // P50 above P99 (P90 in between left as is): out of order.
  CHECK(with([](PointPerf& p) { p.tpot_s.p50 = 1; }) ==
        "points.jsonl:2: /perf/tpot_s: percentiles out of order (p50 <= p90 <= p99)");
  // JSON has no NaN or infinity: 1e400 is how one gets in, and the parser refuses it.
  std::string huge = f.line(good);
  huge.replace(huge.find("\"simulated_time_s\":2.5"), 22, "\"simulated_time_s\":1e400");
  CHECK(f.error(huge + "\n").find("points.jsonl:1") == 0);
  // A broken line that is not the last is damage, not a torn write.
  CHECK(f.error("{\"hash\": \n" + f.line(good) + "\n").find("points.jsonl:1") == 0);
  // Missing figures.
  CHECK(f.error("{\"hash\": \"" + f.sweep.points[0].hash + "\", \"perf\": {}}\n")
            .find("points.jsonl:1: /perf: not a point's figures") == 0);
  CHECK(f.error("") == "");
}

TEST_CASE("sweep grid: axes that multiply past the point limit are refused before the grid is built") {
  // Six axes of 20 values: 6.4e7 configurations x 2 concurrencies. Building them first (as the
  // expansion did) takes gigabytes and minutes before the point count is checked; the count now
  // comes first. Found by reading the expansion while writing the sweep-spec fuzz target.
  auto j = analysis_test::tiny_spec({1});
  nlohmann::json values = nlohmann::json::array();
  for (int v = 1; v <= 20; ++v) values.push_back(v);
  j["axes"] = {{"max_num_seqs", values},    {"max_num_batched_tokens", values}, {"spec_tokens", values},
               {"tensor_parallel", values}, {"expert_parallel", values},        {"acceptance_length", values}};
  std::string msg;
  try {
    expand_sweep(parse_sweep_spec(j, "big.json"), analysis_test::catalog());
  } catch (const data::LoadError& e) {
    msg = e.what();
  }
  CHECK(msg == "big.json: /: the grid has 1.28e+08 points (at most 1000000)");
}

TEST_CASE("a journal's counts that no integer can hold are refused, not converted (fuzzer finding)") {
  // The sweep_journal fuzzer wrote "input_tokens": 5.88e42; converting that double to int64 is
  // undefined behaviour (UBSan stopped the run). A fraction is no count either.
  const nlohmann::json good = analysis::PointPerf{}.to_json();
  CHECK_NOTHROW(analysis::PointPerf::from_json(good));
  for (const char* key : {"input_tokens", "requests_completed", "num_gpus"}) {
    auto huge = good;
    huge[key] = 5.88e42;
    CHECK_THROWS_AS(analysis::PointPerf::from_json(huge), std::invalid_argument);
    auto fraction = good;
    fraction[key] = 2.5;
    CHECK_THROWS_AS(analysis::PointPerf::from_json(fraction), std::invalid_argument);
  }
  auto whole = good;
  whole["input_tokens"] = 1024.0;  // a whole number written as a float is still a count
  CHECK(analysis::PointPerf::from_json(whole).input_tokens == 1024);
}

TEST_CASE("journal: an earlier spec's journal gives the points whose inputs are unchanged (seeds added)") {
  // The journal of a one-seed sweep, read for the same sweep with seeds {1, 2}: a point's hash
  // covers every input of its simulation, seed included, so the seed-1 points are the same points
  // and are reused; the seed-2 points are new and run.
  JournalFixture one;  // seeds {1}
  const SweepSpec two_spec = parse_sweep_spec(analysis_test::tiny_spec({1, 2}), "tiny.json");
  const ExpandedSweep two = expand_sweep(two_spec, analysis_test::catalog());
  REQUIRE(two.points.size() == 2 * one.sweep.points.size());
  const auto p = JournalFixture::good_perf();
  const std::string journal = one.line(p, 0) + "\n";
  const auto j = parse_sweep_journal(journal, "points.jsonl", two, two_spec, JournalOf::kEarlierSpec);
  CHECK(j.points.size() == 1);
  CHECK(j.points.contains(one.sweep.points[0].hash));
  CHECK(j.num_other_points == 0);
  // Read the other way (a seed removed), the seed-2 point is counted as another spec's, not refused;
  // for this very spec (JournalOf::kThisSpec) it is still refused.
  const std::string seed2 = nlohmann::json{{"hash", two.points[1].hash}, {"perf", p.to_json()}}.dump() + "\n";
  REQUIRE(two.points[1].seed == 2);
  const auto back = parse_sweep_journal(journal + seed2, "points.jsonl", one.sweep, one.spec, JournalOf::kEarlierSpec);
  CHECK(back.points.size() == 1);
  CHECK(back.num_other_points == 1);
  CHECK(one.error(journal + seed2).find("points.jsonl:2: /hash:") == 0);
  // Damage is refused whoever's journal it is.
  CHECK_THROWS_AS(parse_sweep_journal("{\"hash\": \"x\"}\n" + journal, "points.jsonl", one.sweep, one.spec,
                                      JournalOf::kEarlierSpec),
                  data::LoadError);
}

TEST_CASE("journal: the lines that hold a point are counted; a journal no point reached counts 0") {
  CHECK(count_journal_lines("") == 0);
  CHECK(count_journal_lines("\n\n") == 0);
  CHECK(count_journal_lines("{\"hash\": 1}\n{\"ha") == 2);  // a torn last line counts: it was a point's
}

TEST_CASE("a sweep's fingerprint names its build and changes with any calibration curve") {
  auto spec = parse_sweep_spec(analysis_test::tiny_spec({1}), "spec.json");
  auto sweep = expand_sweep(spec, analysis_test::catalog());
  auto calibrations = calibrations_for(sweep, analysis_test::catalog());
  const auto a = sweep_fingerprint(calibrations);
  CHECK(a.build == core::version_line());
  CHECK(a.calibration.size() == 16);
  CHECK(sweep_fingerprint(calibrations) == a);  // the same curves, the same fingerprint
  // The sources' wording is not part of it; a curve's value is.
  calibrations.begin()->second.source += " (reworded)";
  CHECK(sweep_fingerprint(calibrations) == a);
  calibrations.begin()->second.kernel_floor_s *= 1.01;
  CHECK(sweep_fingerprint(calibrations).calibration != a.calibration);
  // Read back from what sweep.json records; a file without one resumes as before.
  CHECK(recorded_fingerprint(nlohmann::json{{"fingerprint", a.to_json()}}) == a);
  CHECK(!recorded_fingerprint(nlohmann::json{{"spec_hash", "x"}}).has_value());
}
