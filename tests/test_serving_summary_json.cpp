// The one writer of a serving run's results (sim/serving/summary_json.h): what `tycoon benchmark
// --json` prints, written from the summary's own fields.
#include <doctest/doctest.h>

#include "sim/serving/summary_json.h"

using namespace tycoon;

TEST_CASE("summary_json: latencies in milliseconds, op classes with time only, provenance by name") {
  serving::ServingSummary s;
  s.ttft_s = {0.25, 0.2, 0.5, 1.0};
  s.output_tok_per_s_per_gpu = 1234.5;
  s.requests_arrived = 10;
  s.requests_completed = 9;
  s.requests_failed = 1;
  s.time_by_op_s[0] = 2.5;  // one op class with GPU time; the rest are left out
  s.provenance = perf::Provenance::kExtrapolated;
  const auto j = serving::summary_json(s);
  // 0.25 s = 250 ms; 1.0 s p99 = 1000 ms.
  CHECK(j.at("ttft_ms").at("mean").get<double>() == doctest::Approx(250.0));
  CHECK(j.at("ttft_ms").at("p99").get<double>() == doctest::Approx(1000.0));
  CHECK(j.at("output_tok_per_s_per_gpu").get<double>() == 1234.5);
  CHECK(j.at("requests_completed") == 9);
  CHECK(j.at("time_by_op_s").size() == 1);
  CHECK(j.at("time_by_op_s").at(std::string(perf::kOpClassNames[0])).get<double>() == 2.5);
  CHECK(j.at("provenance") == "extrapolated");
  // Results only: the configuration and the wall time are the caller's.
  CHECK_FALSE(j.contains("config"));
  CHECK_FALSE(j.contains("wall_time_s"));
}

TEST_CASE("disaggregated_stats_json: both pools and the TTFT parts in milliseconds") {
  serving::DisaggregatedStats st;
  st.prefill.replicas = 1;
  st.decode.replicas = 2;
  st.decode.requests_per_replica = {5, 6};
  st.num_transfers = 11;
  st.transfer_s_mean = 0.004;
  st.ttft_prefill_s_mean = 0.120;
  st.ttft_first_step_s_mean = 0.015;
  const auto j = serving::disaggregated_stats_json(st);
  CHECK(j.at("prefill").at("replicas") == 1);
  CHECK(j.at("decode").at("requests_per_replica") == nlohmann::json::array({5, 6}));
  CHECK(j.at("num_transfers") == 11);
  CHECK(j.at("transfer_ms_mean").get<double>() == doctest::Approx(4.0));
  CHECK(j.at("ttft_breakdown_ms_mean").at("prefill").get<double>() == doctest::Approx(120.0));
  CHECK(j.at("ttft_breakdown_ms_mean").at("first_step").get<double>() == doctest::Approx(15.0));
  serving::KvLink link{serving::KvLinkKind::kEthernet, 5e9, 2e-5};
  const auto l = serving::kv_link_json(link);
  CHECK(l.at("kind") == "ethernet");
  CHECK(l.at("bandwidth_bytes_per_s_per_gpu").get<double>() == 5e9);
}
