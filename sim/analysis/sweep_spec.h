// A what-if sweep: a grid over deployments (chips, models, engines, recipe fields), workloads,
// concurrency, token prices and seeds, read from a strict JSON spec (format: README.md,
// "Analyst sweeps"), and its expansion into independent simulation points.
//
// A *configuration* is one resolved deployment plus its scheduler settings; a *series* is a
// configuration under one workload (one line on the Pareto chart, over concurrency); a *point*
// is a series at one concurrency and one seed — one serving simulation. Prices do not change
// the simulation: every point is priced at every price of the spec afterwards.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/types.h"
#include "sim/data/catalog.h"
#include "sim/perf/deployment.h"
#include "sim/serving/benchmark_run.h"
#include "sim/serving/deployment_plan.h"
#include "sim/serving/resolve_config.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::analysis {

// Deployment and scheduler fields a configuration may set; unset ones come from the recipe for
// (model, chip) when the catalog has one, else from the model card and engine defaults.
struct ConfigFields {
  std::optional<std::string> hardware, model;
  // The recipe's overlay (engine, precision, parallelism, speculative decoding with the spec's
  // `spec_tokens` and `acceptance_length`, batch limits, prefix caching, CUDA graphs): the same
  // type every caller hands the deployment plan.
  serving::ServingOverrides recipe;
  std::optional<double> gpu_usd_per_hour;  // overrides the catalog's rent for the contract
  // Disaggregated prefill/decode (sim/serving/disaggregated.h): when `disaggregated` is true
  // `recipe` is the prefill pool's; the decode pool's `decode` (the spec's decode_precision,
  // decode_tensor_parallel, decode_max_num_seqs) over the plan's rule for the rest
  // (serving::decode_overrides).
  std::optional<bool> disaggregated;
  // Aggregated: how many identical replicas serve (a fleet behind the recipe's router, or the
  // spec's `router`); disaggregated deployments count each pool's instead.
  std::optional<int> replicas;
  std::optional<int> prefill_replicas, decode_replicas;
  std::optional<std::string> decode_hardware, kv_link;
  serving::ServingOverrides decode;

  // Fields set in `over` replace this one's.
  void merge(const ConfigFields& over);
};

struct WorkloadChoice {
  std::string name;
  serving::WorkloadKind kind = serving::WorkloadKind::kRandom;
  std::int64_t input_tokens = 1024;
  std::int64_t output_tokens = 1024;
  std::string pointer;  // where it was given in the spec
};

// Token prices: absolute, or the model card's market price scaled.
struct PriceChoice {
  std::string name;
  std::optional<double> market_scale;
  double input_usd_per_mtok = 0, cached_input_usd_per_mtok = 0, output_usd_per_mtok = 0;
  std::string pointer;
};

struct SweepSpec {
  std::string file;
  std::string name;
  std::string title;
  std::string description;
  ConfigFields base;
  struct LabelledConfig {
    std::string label;
    ConfigFields fields;
    std::string pointer;
  };
  std::vector<LabelledConfig> configurations;  // at least one (an empty one when not given)
  struct AxisValue {
    std::string label;  // "tp=4"
    ConfigFields fields;
    std::string pointer;
  };
  std::vector<std::vector<AxisValue>> axes;  // each crossed with the configurations
  // The `xpyd_gpus` axis: for each GPU budget, every split of it into x prefill and y decode
  // replicas (x·prefill TP + y·decode TP = budget, x, y >= 1) and the aggregated fleet of the same
  // GPUs (budget / TP replicas, where it divides): crossed after every other axis.
  struct GpuBudget {
    int gpus = 0;
    std::string pointer;
  };
  std::vector<GpuBudget> xpyd_gpus;
  std::vector<WorkloadChoice> workloads;
  std::vector<int> concurrency;
  std::vector<PriceChoice> prices;
  std::vector<std::uint64_t> seeds;
  int requests_per_user = serving::kRequestsPerUser;  // the benchmark's: InferenceX's 10 x concurrency
  std::int64_t min_requests = 0;
  std::int64_t max_requests = 0;  // 0: no cap
  Contract contract = Contract::kOnDemand;
  std::optional<double> target_p90_tok_per_s_per_user;  // the interactivity the operating point must meet
  std::optional<double> target_gross_margin;            // in [0, 1): the price that keeps it is reported
  // Service-level targets: a point that misses any of them is flagged and never picked. Below
  // kMinTtftTargetMs / kMinTpotTargetMs they are refused with a hint (seconds typed as ms).
  std::optional<double> target_max_p90_ttft_ms, target_max_p99_ttft_ms, target_max_p90_tpot_ms;
  std::optional<double> target_max_failed_share;  // in [0, 1]: failed / (completed + failed) requests
  // Targets are met at the far end of each figure's interval, not on its mean (`sweep
  // --conservative`; the report's choice only, never the simulation's).
  bool conservative = false;
  nlohmann::json canonical;  // the parsed spec, for hashing and the resolved copy
};

// The smallest latency targets a spec may set. A first token takes at least a prefill and a step
// (Llama-3.1-8B on one H200, 256-token prompts, 2 users, bf16: P50 TTFT 23.6 ms, the first point of
// tests/cli_test.sh's tiny sweep), so a TTFT target under 10 ms is read as seconds typed as ms
// ("max_p90_ttft_ms": 2). A next token can take under 10 ms (the same point: P50 TPOT 5.8 ms), so
// the TPOT floor is 1 ms (1,000 tok/s per user), which still catches 0.05 typed for 50 ms.
inline constexpr double kMinTtftTargetMs = 10;
inline constexpr double kMinTpotTargetMs = 1;

// Parses a spec; throws data::LoadError (`file: /pointer: reason`) on the first problem.
SweepSpec parse_sweep_spec(const nlohmann::json& j, const std::string& file);
SweepSpec load_sweep_spec(const std::filesystem::path& path);

// A configuration with its deployment resolved against the catalog (which must outlive it).
struct ResolvedConfig {
  std::string label;
  ConfigFields fields;
  // The deployment plan (serving::resolve_plan) without calibrations: the sweep's own are added
  // per point (sweep_run.cpp).
  serving::DeploymentPlan plan;
  double gpu_usd_per_hour = 0;  // disaggregated: the mean over both pools' GPUs
  std::string gpu_price_source;
  // Provisioned power per GPU all in (data::Accelerator::all_in_power_watts; disaggregated: the
  // mean over both pools' GPUs); NaN when a pool's chip has no published figure.
  double all_in_power_watts = std::numeric_limits<double>::quiet_NaN();
  // The chips' catalog rents under each contract (on demand, reserved, spot), GPU-weighted over
  // both pools when disaggregated; NaN where a chip has no such price. For the cost columns under
  // each contract, whatever `gpu_usd_per_hour` the sweep rents at.
  std::array<double, 3> contract_usd_per_gpu_hour{std::numeric_limits<double>::quiet_NaN(),
                                                  std::numeric_limits<double>::quiet_NaN(),
                                                  std::numeric_limits<double>::quiet_NaN()};
  std::string pointer;
  const perf::Deployment& deployment() const { return plan.config.deployment; }
  const serving::SchedulerConfig& scheduler() const { return plan.config.scheduler; }
  int replicas() const { return plan.config.replicas; }  // the prefill pool's when disaggregated
  int num_gpus() const;                                  // every GPU of the deployment (both pools)
  const std::optional<serving::Disaggregation>& disaggregation() const { return plan.config.disaggregated; }
  nlohmann::json describe() const;  // every resolved field, for the summary and the hash
};

// Resolves one configuration's fields (recipe defaults, then the fields) into a deployment and
// scheduler settings, and checks that it can run and fits in memory; throws data::LoadError at
// `pointer` with the reason.
ResolvedConfig resolve_config(const SweepSpec& spec, const data::Catalog& catalog, const ConfigFields& fields,
                              std::string label, const std::string& pointer);

struct Series {
  std::size_t config = 0;
  std::size_t workload = 0;
  std::string label;  // "config label · workload name"
};

struct SweepPoint {
  std::size_t series = 0;
  int concurrency = 1;
  std::uint64_t seed = 1;
  std::int64_t num_requests = 0;
  std::string hash;  // 16 hex digits of the resolved inputs: the resume key
};

struct ExpandedSweep {
  std::vector<ResolvedConfig> configs;
  // What the expansion left out and why ("8 GPUs: 7P1D does not fit: ..."), for the console.
  std::vector<std::string> notes;
  std::vector<Series> series;
  std::vector<SweepPoint> points;  // grid order: series, then concurrency, then seed
  std::string spec_hash;
};

// Expands the grid and resolves every configuration; throws data::LoadError naming the spec's
// pointer of the offending entry (unknown id, a deployment that cannot run or does not fit, a
// workload longer than the context window) before any simulation runs.
ExpandedSweep expand_sweep(const SweepSpec& spec, const data::Catalog& catalog);

// The simulator's input for one point.
serving::ServingConfig serving_config(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& p);

// FNV-1a 64 of `text` as 16 hex digits: stable across platforms and runs.
std::string stable_hash(std::string_view text);

}  // namespace tycoon::analysis
