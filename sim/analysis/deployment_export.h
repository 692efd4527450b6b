// From an answer to a deployment: a simulated deployment (a sweep's operating point, a scenario's
// deployment, a benchmark's flags) written as what a team runs to confirm it on real GPUs — each
// pool's engine launch command (vLLM, SGLang or TensorRT-LLM, every flag one the engine documents
// at the version named in hardware_db/engines/launch/), a bare-metal run script, a Kubernetes
// manifest (Deployments, Services and, for TensorRT-LLM, the options file as a ConfigMap) and a
// benchmark plan with the figures the simulation expects, each with its interval.
//
// What the engine's command cannot carry (a setting whose flag was not found documented, a
// mechanism the engine runs differently) is never guessed: it is left out and said in `notes`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/data/engine_launch.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::analysis {

// A figure the simulation expects at the exported point, with the interval it reports.
struct ExpectedFigure {
  std::string metric;  // "output_tok_per_s_per_gpu", "ttft_p90_ms", ...
  std::string unit;
  double value = 0;
  double low = 0, high = 0;  // the reported interval (seeds and model error)
};

struct ExportPoint {
  std::string label;   // what was exported
  std::string source;  // where it came from ("sweep /tmp/x, series '...'", "scenario ...")
  // The deployment: model, each pool's chip, engine, recipe and replicas (workload and arrival unused).
  serving::ServingConfig config;
  // The traffic the plan replays: the benchmark's random lengths, or none (the plan then names the
  // scenario's and leaves the lengths to the reader).
  std::optional<std::int64_t> input_tokens, output_tokens;
  std::string workload;    // its name, for the plan
  double concurrency = 0;  // closed-loop users of the whole deployment (0: none chosen)
  std::vector<ExpectedFigure> expected;
  std::string provenance;  // the calibration behind the expected figures ("measured", "extrapolated")
  // Whether the expected figures are steady-state ones (a sweep's operating point, `benchmark
  // --steady-state`: the warm-up and the users' common start cut), or those of InferenceX's run
  // as the plan's client command makes it (a plain `tycoon benchmark`). The plan sends as many
  // requests per user as make its own run measure what the figures describe.
  bool steady_state_figures = false;
};

// Requests per user of the plan's runs: InferenceX's 10 (benchmark_lib.sh: --num-prompts 10 x
// concurrency, after 2 x concurrency of warm-up), whose first round, every user starting at once,
// is a tenth of what it measures and sets its P90 TTFT; for steady-state figures 50, where that
// round is 2% of the requests, under the P90's 10% (the simulator's own run of the plan, GPT-OSS-
// 120B on one H200 at 34 users: P90 TTFT 102-105 ms at 10 per user, 63.0-63.1 at 50, the
// steady-state figure 63.4; tests/cli_test.sh).
inline constexpr int kPlanRequestsPerUser = 10;
inline constexpr int kSteadyPlanRequestsPerUser = 50;

struct ExportOptions {
  std::string model_path;  // a checkpoint to serve instead of the model's published repository
  std::string name;        // the Kubernetes objects' name stem (DNS-1123); empty: from model and chip
  int port = 8000;
};

// One process to start per replica of one pool.
struct LaunchCommand {
  std::string role;  // "server" (aggregated), "prefill", "decode"
  int replicas = 1;
  int gpus_per_replica = 1;
  std::vector<std::string> argv;
  // TensorRT-LLM: the LLM API options file --extra_llm_api_options names (its YAML); empty otherwise.
  std::string options_file;
  std::string options_yaml;
};

struct ExportBundle {
  std::string engine, engine_version;
  std::vector<LaunchCommand> commands;
  std::vector<std::string> notes;  // what the commands leave out or run differently, and why
  std::string run_script;          // bash: every pool's replicas on one host's GPUs, in order
  std::string manifest_yaml;
  // vLLM split into pools: NVIDIA Dynamo's DynamoGraphDeployment (a frontend that routes each
  // request to a prefill worker, then a decode worker); empty otherwise.
  std::string dynamo_yaml;
  nlohmann::json benchmark_plan;
  nlohmann::json summary;  // everything above, machine-readable, with the sources
  std::string readme;      // markdown for a person
};

// Throws core::InputError when the deployment cannot be written for its engine: an engine without
// launch facts, a model without a known repository and no `model_path`, a precision that needs a
// pre-quantized checkpoint the catalog does not name.
ExportBundle export_deployment(const ExportPoint& point, const data::EngineLaunch& launch,
                               const data::ModelRepos& repos, const ExportOptions& options);

// The flags (arguments starting with '-') of `argv` that `launch` does not document, and the
// values outside an argument's documented choices ("--kv-cache-dtype fp9"); empty when all are.
std::vector<std::string> undocumented_arguments(const std::vector<std::string>& argv, const data::EngineLaunch& launch);

// `s` as a DNS-1123 label stem: lower case, digits and '-', at most 40 characters.
std::string kubernetes_name(std::string_view s);

// A shell word: as it is when it has no character a shell would read, else in single quotes (a
// JSON argument, a path with spaces), so that a printed command pastes into a shell as run.sh runs it.
std::string shell_quote(const std::string& a);

}  // namespace tycoon::analysis
