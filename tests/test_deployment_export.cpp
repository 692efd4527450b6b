// `tycoon export`'s rules (sim/analysis/deployment_export.h): each engine's launch command carries
// the simulated deployment with flags its documentation lists (hardware_db/engines/launch/), and
// what it cannot carry is said, never guessed.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/analysis/deployment_export.h"
#include "sim/core/input_error.h"
#include "sim/serving/deployment_plan.h"
#include "tests/test_common.h"

using namespace tycoon;
using test::catalog;

namespace {

const data::EngineLaunch& launch(const std::string& engine) {
  static std::map<std::string, data::EngineLaunch> cache;
  auto it = cache.find(engine);
  if (it == cache.end()) it = cache.emplace(engine, data::load_engine_launch(TYCOON_SOURCE_DIR, engine)).first;
  return it->second;
}
const data::ModelRepos& repos() {
  static const data::ModelRepos r = data::load_model_repos(TYCOON_SOURCE_DIR);
  return r;
}

// A point of `model` on `chip` with the recipe's settings and `over` on top.
analysis::ExportPoint point(const std::string& model, const std::string& chip, serving::ServingOverrides over = {},
                            int replicas = 1, std::optional<int> decode_replicas = std::nullopt) {
  serving::PlanRequest r;
  r.model = &catalog().model(model);
  r.pool.chip = chip;
  r.pool.recipe = over;
  r.pool.replicas = replicas;
  if (decode_replicas) {
    serving::PoolRequest d;
    d.chip = chip;
    d.recipe.engine = over.engine;
    d.replicas = *decode_replicas;
    r.decode = d;
  }
  analysis::ExportPoint p;
  p.label = model + " on " + chip;
  p.source = "a test";
  p.config = serving::resolve_plan(catalog(), r, {}).config;
  p.concurrency = 32;
  p.input_tokens = 1024;
  p.output_tokens = 1024;
  return p;
}

bool has(const std::vector<std::string>& argv, const std::string& flag, const std::string& value = "") {
  auto it = std::find(argv.begin(), argv.end(), flag);
  if (it == argv.end()) return false;
  return value.empty() || (it + 1 != argv.end() && *(it + 1) == value);
}

}  // namespace

TEST_CASE("level 1's H200 deployment as vLLM: every flag documented, the recipe carried over") {
  // GPT-OSS-120B's H200 recipe: vLLM, MXFP4 experts as published, TP1, 256 sequences, an 8,192
  // token budget, prefix caching, EAGLE-3 with 7 drafts (models/recipes/gpt-oss-120b__h200.json).
  const auto b = analysis::export_deployment(point("gpt-oss-120b", "h200"), launch("vllm"), repos(), {});
  REQUIRE(b.commands.size() == 1);
  const auto& argv = b.commands[0].argv;
  CHECK(analysis::undocumented_arguments(argv, launch("vllm")).empty());
  CHECK(argv[0] == "vllm");
  CHECK(argv[2] == "openai/gpt-oss-120b");  // the published MXFP4 checkpoint: no --quantization
  CHECK(!has(argv, "--quantization"));
  CHECK(has(argv, "--tensor-parallel-size", "1"));
  CHECK(has(argv, "--max-num-seqs", "256"));
  CHECK(has(argv, "--max-num-batched-tokens", "8192"));
  CHECK(has(argv, "--enable-prefix-caching"));
  CHECK(has(argv, "--speculative-config",
            R"({"method":"eagle3","model":"nvidia/gpt-oss-120b-Eagle3","num_speculative_tokens":7})"));
  CHECK(has(argv, "--gpu-memory-utilization", "0.90"));  // vLLM's default fraction, the simulation's
  CHECK(b.manifest_yaml.find("kind: Deployment") != std::string::npos);
  CHECK(b.manifest_yaml.find("nvidia.com/gpu: 1") != std::string::npos);
  CHECK(b.benchmark_plan["runs"].size() == 3);  // 16, 32 and 64 users around the point
  // The plan replays the simulated traffic: lengths uniform on [0.8 X, X] are vLLM's client's
  // [L (1 - q), L (1 + q)] with L = 0.9 X = 922 for 1,024 and q = 0.2 / 1.8; every output to its
  // full length; the P90s the expectation names printed.
  const auto run = b.benchmark_plan["runs"][1]["argv"].get<std::vector<std::string>>();
  CHECK(has(run, "--random-input-len", "922"));
  CHECK(has(run, "--random-range-ratio", "0.1111"));
  CHECK(has(run, "--max-concurrency", "32"));
  CHECK(has(run, "--num-prompts", "320"));  // InferenceX's 10 requests per user
  CHECK(has(run, "--ignore-eos"));
  CHECK(has(run, "--metric-percentiles", "50,90,99"));
}

TEST_CASE("a plan that confirms steady-state figures sends enough requests that the common start is 2% of them") {
  // InferenceX's 10 requests per user measure a first round of every user starting at once, a
  // tenth of the requests, which sets the P90 TTFT (GPT-OSS-120B, one H200, 34 users: 102 ms,
  // against a steady 63). A sweep's operating point is a steady-state figure: its plan sends 50
  // per user (a run the simulator puts at 63.0-63.1 ms), and says which figures it expects.
  auto p = point("gpt-oss-120b", "h200");
  p.steady_state_figures = true;
  p.expected.push_back({"ttft_p90_ms", "ms", 63.4, 53.5, 73.4});
  const auto b = analysis::export_deployment(p, launch("vllm"), repos(), {});
  const auto run = b.benchmark_plan["runs"][1]["argv"].get<std::vector<std::string>>();
  CHECK(has(run, "--max-concurrency", "32"));
  CHECK(has(run, "--num-prompts", "1600"));
  CHECK(has(run, "--num-warmups", "64"));
  CHECK(b.benchmark_plan["expected_figures"].get<std::string>().find("Steady-state") == 0);
  CHECK(b.readme.find("50 requests per user") != std::string::npos);
}

TEST_CASE("a printed command pastes into a shell: JSON arguments are single-quoted") {
  CHECK(analysis::shell_quote("--max-num-seqs") == "--max-num-seqs");
  CHECK(analysis::shell_quote("openai/gpt-oss-120b") == "openai/gpt-oss-120b");
  CHECK(analysis::shell_quote(R"({"method":"eagle3","num_speculative_tokens":7})") ==
        R"('{"method":"eagle3","num_speculative_tokens":7}')");
  CHECK(analysis::shell_quote("it's") == R"('it'\''s')");
  CHECK(analysis::shell_quote("") == "''");
}

TEST_CASE("a flag or a value the engine does not document is caught") {
  const auto& v = launch("vllm");
  CHECK(analysis::undocumented_arguments({"vllm", "serve", "m", "--tp", "2"}, v) == std::vector<std::string>{"--tp"});
  CHECK(analysis::undocumented_arguments({"vllm", "serve", "m", "--kv-cache-dtype", "fp9"}, v) ==
        std::vector<std::string>{"--kv-cache-dtype fp9"});
  CHECK(analysis::undocumented_arguments({"vllm", "serve", "m", "--kv-cache-dtype", "fp8"}, v).empty());
}

TEST_CASE("FP8 of a bf16 checkpoint is quantized on load by vLLM and SGLang; FP4 needs a checkpoint named") {
  serving::ServingOverrides fp8;
  fp8.precision = Precision::kFp8;
  fp8.tensor_parallel = 2;
  auto b = analysis::export_deployment(point("llama-3.1-70b", "h200", fp8), launch("vllm"), repos(), {});
  CHECK(has(b.commands[0].argv, "--quantization", "fp8"));
  CHECK(b.commands[0].argv[2] == "meta-llama/Llama-3.1-70B-Instruct");
  CHECK(b.commands[0].gpus_per_replica == 2);

  serving::ServingOverrides fp4 = fp8;
  fp4.precision = Precision::kFp4;
  fp4.engine = "vllm";
  const auto p = point("llama-3.1-70b", "b200", fp4);
  CHECK_THROWS_WITH_AS(analysis::export_deployment(p, launch("vllm"), repos(), {}),
                       doctest::Contains("pass --model-path with a pre-quantized checkpoint"), core::InputError);
  analysis::ExportOptions named;
  named.model_path = "nvidia/Llama-3.1-70B-Instruct-FP4";
  b = analysis::export_deployment(p, launch("vllm"), repos(), named);
  CHECK(b.commands[0].argv[2] == named.model_path);
  CHECK(!has(b.commands[0].argv, "--quantization"));  // the checkpoint says how it is quantized
}

TEST_CASE("SGLang and TensorRT-LLM commands use only their documented flags") {
  serving::ServingOverrides sg;
  sg.engine = "sglang";
  sg.spec_draft_tokens = 3;
  sg.spec_acceptance_length = 2.3;
  auto b = analysis::export_deployment(point("gpt-oss-120b", "h200", sg), launch("sglang"), repos(), {});
  const auto& argv = b.commands[0].argv;
  CHECK(analysis::undocumented_arguments(argv, launch("sglang")).empty());
  CHECK(has(argv, "--model-path", "openai/gpt-oss-120b"));
  CHECK(has(argv, "--tp-size", "1"));
  // A chain of 3 drafts: 3 steps of top-1, 4 tokens verified.
  CHECK(has(argv, "--speculative-algorithm", "EAGLE3"));
  CHECK(has(argv, "--speculative-num-steps", "3"));
  CHECK(has(argv, "--speculative-eagle-topk", "1"));
  CHECK(has(argv, "--speculative-num-draft-tokens", "4"));
  // SGLang's receive interval, where the simulation ran one (off by default: no flag).
  CHECK_FALSE(has(argv, "--scheduler-recv-interval"));
  sg.recv_interval = 10;
  const auto recv = analysis::export_deployment(point("gpt-oss-120b", "h200", sg), launch("sglang"), repos(), {});
  CHECK(has(recv.commands[0].argv, "--scheduler-recv-interval", "10"));
  CHECK(analysis::undocumented_arguments(recv.commands[0].argv, launch("sglang")).empty());

  serving::ServingOverrides trt;
  trt.engine = "trtllm";
  trt.spec_draft_tokens = 0;
  b = analysis::export_deployment(point("gpt-oss-120b", "h200", trt), launch("trtllm"), repos(), {});
  const auto& c = b.commands[0];
  CHECK(analysis::undocumented_arguments(c.argv, launch("trtllm")).empty());
  CHECK(has(c.argv, "--backend", "pytorch"));
  CHECK(has(c.argv, "--extra_llm_api_options", "extra-llm-api-options-server.yaml"));
  CHECK(c.options_yaml.find("enable_block_reuse: true") != std::string::npos);  // prefix caching on
  // The options file travels to the pod as a ConfigMap mounted where the command reads it.
  CHECK(b.manifest_yaml.find("kind: ConfigMap") != std::string::npos);
  CHECK(b.manifest_yaml.find("\"/config/extra-llm-api-options-server.yaml\"") != std::string::npos);
}

TEST_CASE("a disaggregated deployment writes one command per pool, each with the KV connector") {
  serving::ServingOverrides v;
  v.engine = "vllm";
  v.spec_draft_tokens = 0;
  const auto b = analysis::export_deployment(point("gpt-oss-120b", "h200", v, 2, 3), launch("vllm"), repos(), {});
  REQUIRE(b.commands.size() == 2);
  CHECK(b.commands[0].role == "prefill");
  CHECK(b.commands[0].replicas == 2);
  CHECK(b.commands[1].role == "decode");
  CHECK(b.commands[1].replicas == 3);
  for (const auto& c : b.commands) {
    CHECK(has(c.argv, "--kv-transfer-config", R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})"));
  }
  // The plain manifest has no router (the notes say so); Dynamo's graph puts its frontend in front of
  // 2 prefill and 3 decode workers, each with vLLM's engine flags and its mode, no API-server port.
  CHECK(std::any_of(b.notes.begin(), b.notes.end(), [](const std::string& n) { return n.find("router") != n.npos; }));
  CHECK(b.dynamo_yaml.find("kind: DynamoGraphDeployment") != std::string::npos);
  CHECK(b.dynamo_yaml.find("subComponentType: prefill\n      replicas: 2") != std::string::npos);
  CHECK(b.dynamo_yaml.find("subComponentType: decode\n      replicas: 3") != std::string::npos);
  CHECK(b.dynamo_yaml.find("\"--disaggregation-mode\"\n            - \"decode\"") != std::string::npos);
  CHECK(b.dynamo_yaml.find("--port") == std::string::npos);
  CHECK(b.manifest_yaml.find("gpt-oss-120b-h200-prefill") != std::string::npos);
  // The run script puts each replica on its own GPUs and port: 5 servers on GPUs 0-4, ports 8000-8004.
  CHECK(b.run_script.find("CUDA_VISIBLE_DEVICES=4 ") != std::string::npos);
  CHECK(b.run_script.find("--port 8004") != std::string::npos);
  // ... each with its own NIXL side channel (one port per GPU from 5600), and the pods announce
  // their own address for it.
  CHECK(b.run_script.find("VLLM_NIXL_SIDE_CHANNEL_PORT=5600 ") != std::string::npos);
  CHECK(b.run_script.find("VLLM_NIXL_SIDE_CHANNEL_PORT=5604 ") != std::string::npos);
  CHECK(b.manifest_yaml.find("fieldPath: status.podIP") != std::string::npos);
}

TEST_CASE("Kubernetes names are DNS-1123 labels") {
  CHECK(analysis::kubernetes_name("Llama-3.1-70B on H200") == "llama-3-1-70b-on-h200");
  CHECK(analysis::kubernetes_name("--") == "tycoon");
  CHECK(analysis::kubernetes_name(std::string(80, 'a')).size() == 40);
  CHECK(analysis::kubernetes_name("8x-h200") == "t-8x-h200");  // a Service name starts with a letter
}
