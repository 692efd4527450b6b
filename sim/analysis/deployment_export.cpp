#include "sim/analysis/deployment_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/input_error.h"
#include "sim/core/types.h"

namespace tycoon::analysis {

namespace {

using core::InputError;

// One pool as the simulation ran it.
struct Pool {
  std::string role;
  const perf::Deployment* deployment = nullptr;
  const serving::SchedulerConfig* scheduler = nullptr;
  int replicas = 1;
};

// The checkpoint a pool serves and whether the engine quantizes it on load.
struct Checkpoint {
  std::string repo;
  bool online_fp8 = false;  // a bf16 checkpoint quantized to FP8 by the engine as it loads
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Which checkpoint serves `d`: the model's published repository when the recipe's precision is the
// checkpoint's own (a gpt-oss "fp4" is its MXFP4 experts), the same repository quantized to FP8 on
// load where the engine does that, else a pre-quantized checkpoint the caller must name.
Checkpoint checkpoint_for(const perf::Deployment& d, const data::ModelRepos& repos, const ExportOptions& o,
                          bool engine_quantizes_fp8) {
  const auto& model = *d.model;
  const bool as_published =
      d.precision == model.native_precision || (model.expert_precision && d.precision == *model.expert_precision);
  if (!o.model_path.empty())
    return {o.model_path, !as_published && d.precision == Precision::kFp8 && engine_quantizes_fp8};
  auto it = repos.models.find(model.id);
  if (it == repos.models.end()) {
    throw InputError("model '" + model.id + "' has no published repository in " + repos.file +
                     ": pass --model-path with the checkpoint to serve");
  }
  if (as_published) return {it->second.repo, false};
  if (d.precision == Precision::kFp8 && model.native_precision == Precision::kBf16 && engine_quantizes_fp8) {
    return {it->second.repo, true};
  }
  throw InputError("the deployment runs " + std::string(to_string(d.precision)) + " weights of " + model.id +
                   ", whose published checkpoint (" + it->second.repo + ") is " +
                   std::string(to_string(model.native_precision)) + " and which " + d.engine->id +
                   " does not quantize on load to that precision: pass --model-path with a pre-quantized "
                   "checkpoint (an FP8 or NVFP4 export, e.g. by NVIDIA Model Optimizer)");
}

std::string json_arg(const nlohmann::json& j) { return j.dump(); }

// The draft model of speculative decoding, when the catalog names one for the model and method.
const data::ModelRepos::Draft* draft_for(const perf::Deployment& d, const data::ModelRepos& repos) {
  if (!d.spec_decode) return nullptr;
  auto it = repos.drafts.find(d.model->id);
  if (it == repos.drafts.end() || it->second.method != d.spec_decode->method) return nullptr;
  return &it->second;
}

double memory_fraction(const perf::Deployment& d) {
  return d.gpu_memory_utilization > 0 ? d.gpu_memory_utilization : d.engine->kv_memory_fraction;
}

std::string spec_words(const perf::Deployment& d) {
  return d.spec_decode->method + " with " + std::to_string(d.spec_decode->num_draft_tokens) + " draft tokens";
}

class Writer {
 public:
  Writer(const ExportPoint& p, const data::EngineLaunch& l, const data::ModelRepos& r, const ExportOptions& o)
      : point_(p), launch_(l), repos_(r), options_(o) {}

  ExportBundle run();

 private:
  const ExportPoint& point_;
  const data::EngineLaunch& launch_;
  const data::ModelRepos& repos_;
  const ExportOptions& options_;
  ExportBundle out_;
  std::string facts_ = "hardware_db/engines/launch/" + launch_.engine + ".json";  // as the reader finds it
  std::string repo_;  // the checkpoint the first pool serves (the benchmark client names it)

  void note(const std::string& s) {
    if (std::find(out_.notes.begin(), out_.notes.end(), s) == out_.notes.end()) out_.notes.push_back(s);
  }
  Checkpoint begin(const perf::Deployment& d, bool engine_quantizes_fp8, LaunchCommand& c);
  LaunchCommand vllm(const Pool& pool);
  LaunchCommand sglang(const Pool& pool);
  LaunchCommand trtllm(const Pool& pool);
  std::vector<Pool> pools() const;
  std::string name() const;
  void write_script();
  void write_manifest();
  void write_dynamo();
  void write_plan();
  void write_summary();
};

std::vector<Pool> Writer::pools() const {
  const auto& c = point_.config;
  if (!c.disaggregated) return {{"server", &c.deployment, &c.scheduler, c.replicas}};
  return {{"prefill", &c.deployment, &c.scheduler, c.replicas},
          {"decode", &c.disaggregated->decode.deployment, &c.disaggregated->decode.scheduler,
           c.disaggregated->decode.replicas}};
}

std::string Writer::name() const {
  if (!options_.name.empty()) return kubernetes_name(options_.name);
  return kubernetes_name(point_.config.deployment.model->id + "-" + point_.config.deployment.hardware->id);
}

// Every engine's command starts alike: the server command, the checkpoint (positional, or after
// the engine's model flag) and the address it listens on.
Checkpoint Writer::begin(const perf::Deployment& d, bool engine_quantizes_fp8, LaunchCommand& c) {
  const auto ck = checkpoint_for(d, repos_, options_, engine_quantizes_fp8);
  if (repo_.empty()) repo_ = ck.repo;
  c.argv = launch_.server_command;
  if (!launch_.model_argument.empty()) c.argv.push_back(launch_.model_argument);
  c.argv.push_back(ck.repo);
  c.argv.insert(c.argv.end(), {"--host", "0.0.0.0", "--port", std::to_string(options_.port)});
  return ck;
}

LaunchCommand Writer::vllm(const Pool& pool) {
  const auto& d = *pool.deployment;
  const auto& s = *pool.scheduler;
  LaunchCommand c;
  const auto ck = begin(d, true, c);
  auto add = [&](std::initializer_list<std::string> a) { c.argv.insert(c.argv.end(), a); };
  add({"--tensor-parallel-size", std::to_string(d.tensor_parallel)});
  if (d.expert_parallel > 1) {
    add({"--enable-expert-parallel"});
    if (d.expert_parallel != d.tensor_parallel) {
      note(
          "vLLM shards experts over every GPU of a replica when expert parallelism is on: the simulation's "
          "EP " +
          std::to_string(d.expert_parallel) + " of TP " + std::to_string(d.tensor_parallel) + " runs as EP " +
          std::to_string(d.tensor_parallel));
    }
  }
  if (ck.online_fp8) add({"--quantization", "fp8"});
  if (d.kv_cache_dtype == Precision::kFp8) add({"--kv-cache-dtype", "fp8"});
  if (!s.running_limit_from_engine) add({"--max-num-seqs", std::to_string(s.max_num_seqs)});
  add({"--max-num-batched-tokens", std::to_string(s.max_num_batched_tokens)});
  add({s.prefix_caching ? "--enable-prefix-caching" : "--no-enable-prefix-caching"});
  if (!d.cuda_graphs) add({"--enforce-eager"});
  if (s.async_scheduling) add({"--async-scheduling"});
  if (launch_.accepts("--block-size", std::to_string(d.kv_page_tokens))) {
    add({"--block-size", std::to_string(d.kv_page_tokens)});
  } else {
    note("vLLM takes no KV block of " + std::to_string(d.kv_page_tokens) + " tokens: its default block size serves");
  }
  add({"--gpu-memory-utilization", fixed(memory_fraction(d), 2)});
  if (d.spec_decode) {
    nlohmann::json sc = {{"method", d.spec_decode->method},
                         {"num_speculative_tokens", d.spec_decode->num_draft_tokens}};
    const auto* draft = draft_for(d, repos_);
    if (d.spec_decode->method != "mtp") {
      if (!draft) {
        throw InputError("the deployment runs " + spec_words(d) + " and " + repos_.file + " names no " +
                         d.spec_decode->method + " draft model for " + d.model->id +
                         ": export it without speculative decoding (spec tokens 0) or add the draft's repository");
      }
      sc["model"] = draft->repo;
    }
    if (!launch_.accepts("--speculative-config.method", d.spec_decode->method)) {
      throw InputError("vLLM " + launch_.checked_version + " documents no speculative method '" +
                       d.spec_decode->method + "'");
    }
    add({"--speculative-config", json_arg(sc)});
  }
  if (pool.role != "server") {
    nlohmann::json kv = nlohmann::json::object();
    for (const auto& [k, v] : launch_.disaggregation.connector) kv[k] = v;
    add({"--kv-transfer-config", json_arg(kv)});
  }
  return c;
}

LaunchCommand Writer::sglang(const Pool& pool) {
  const auto& d = *pool.deployment;
  const auto& s = *pool.scheduler;
  LaunchCommand c;
  const auto ck = begin(d, true, c);
  auto add = [&](std::initializer_list<std::string> a) { c.argv.insert(c.argv.end(), a); };
  add({"--tp-size", std::to_string(d.tensor_parallel)});
  if (d.expert_parallel > 1) {
    note("SGLang's expert-parallel flag was not found documented at the version read (" + launch_.checked_version +
         "): the command shards experts by tensor parallelism, not the simulation's EP " +
         std::to_string(d.expert_parallel));
  }
  if (ck.online_fp8) add({"--quantization", "fp8"});
  if (d.kv_cache_dtype == Precision::kFp8) add({"--kv-cache-dtype", "fp8_e4m3"});
  if (!s.running_limit_from_engine) add({"--max-running-requests", std::to_string(s.max_num_seqs)});
  // The simulation schedules decodes and prefill chunks in one batch under one token budget;
  // SGLang does that with mixed chunks, its chunk size the budget (and its prefill-batch cap,
  // 16,384 tokens by default, raised to it when the budget is larger).
  add({"--enable-mixed-chunk", "--chunked-prefill-size", std::to_string(s.max_num_batched_tokens)});
  if (s.max_num_batched_tokens > 16384) add({"--max-prefill-tokens", std::to_string(s.max_num_batched_tokens)});
  add({"--page-size", std::to_string(d.kv_page_tokens)});
  if (!s.prefix_caching) add({"--disable-radix-cache"});
  if (s.recv_interval > 1) add({"--scheduler-recv-interval", std::to_string(s.recv_interval)});
  // Its overlap scheduler (simulated with async_scheduling) is its default where it supports the
  // configuration: not with speculative decoding (it turns the overlap off, and the engine card's
  // async_scheduling_with_spec_decode refuses the pair); whether it does with mixed chunks, which
  // this command sets, was not read.
  if (d.spec_decode && d.spec_decode->num_draft_tokens > 0) {
    note(
        "SGLang turns its overlap scheduler off with speculative decoding, so this command runs synchronously, "
        "as the simulation did");
  } else {
    note(std::string("SGLang's overlap scheduler (on by default: it forms each batch while the last one runs, so a "
                     "request arriving mid-step starts a step later) was not checked to run with this command's "
                     "--enable-mixed-chunk at the version read; the simulation ran ") +
         (s.async_scheduling ? "with it" : "without it (tycoon benchmark --async-scheduling runs with it)"));
  }
  if (!d.cuda_graphs) {
    note(
        "SGLang's flag that turns CUDA graphs off was not found documented at the version read: the command "
        "keeps them on where the simulation ran eagerly");
  }
  add({"--mem-fraction-static", fixed(memory_fraction(d), 2)});
  if (d.spec_decode) {
    const auto* draft = draft_for(d, repos_);
    if (d.spec_decode->method == "eagle3" && draft) {
      // A chain of k drafts: k steps of top-1, k + 1 tokens verified (the bonus token).
      const int k = d.spec_decode->num_draft_tokens;
      add({"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", draft->repo,
           "--speculative-num-steps", std::to_string(k), "--speculative-eagle-topk", "1",
           "--speculative-num-draft-tokens", std::to_string(k + 1)});
    } else {
      note("speculative decoding (" + spec_words(d) + ") is not in the command: its SGLang algorithm or draft " +
           "model is not named in the launch facts");
    }
  }
  if (pool.role != "server") {
    if (pool.role == "prefill" && pool.replicas > 1) {
      note(
          "each SGLang prefill server on one host needs its own bootstrap port, whose flag was not found "
          "documented at the version read: run.sh starts them with the same one");
    }
    add({"--disaggregation-mode", pool.role});
    if (launch_.accepts("--disaggregation-transfer-backend", "nixl"))
      add({"--disaggregation-transfer-backend", "nixl"});
  }
  return c;
}

LaunchCommand Writer::trtllm(const Pool& pool) {
  const auto& d = *pool.deployment;
  const auto& s = *pool.scheduler;
  LaunchCommand c;
  begin(d, false, c);  // TensorRT-LLM serves pre-quantized checkpoints: no FP8 on load
  auto add = [&](std::initializer_list<std::string> a) { c.argv.insert(c.argv.end(), a); };
  add({"--backend", "pytorch"});
  add({"--tp_size", std::to_string(d.tensor_parallel)});
  if (d.expert_parallel > 1) add({"--ep_size", std::to_string(d.expert_parallel)});
  add({"--max_batch_size", std::to_string(s.max_num_seqs)});
  add({"--max_num_tokens", std::to_string(s.max_num_batched_tokens)});
  add({"--kv_cache_free_gpu_memory_fraction", fixed(memory_fraction(d), 2)});
  // The LLM API options file: only keys the launch facts list.
  c.options_file = "extra-llm-api-options-" + pool.role + ".yaml";
  std::string y;
  auto key = [&](const std::string& path, const std::string& line) {
    if (!launch_.extra_options.count(path)) throw std::logic_error("TensorRT-LLM option " + path + " not in the facts");
    y += line;
  };
  y += "kv_cache_config:\n";
  if (d.kv_cache_dtype == Precision::kFp8) key("kv_cache_config.dtype", "  dtype: fp8\n");
  key("kv_cache_config.enable_block_reuse",
      std::string("  enable_block_reuse: ") + (s.prefix_caching ? "true" : "false") + "\n");
  key("enable_chunked_prefill",
      std::string("enable_chunked_prefill: ") + (s.chunked_prefill ? "true" : "false") + "\n");
  if (s.batch_wait_iters > 0 || s.batch_wait_tokens_ratio > 0) {
    key("batch_wait_timeout_iters", "batch_wait_timeout_iters: " + std::to_string(s.batch_wait_iters) + "\n");
    std::string ratio = fixed(s.batch_wait_tokens_ratio, 6);  // as given, without trailing zeros
    ratio.erase(ratio.find_last_not_of('0') + 1);
    if (ratio.back() == '.') ratio.pop_back();
    key("batch_wait_max_tokens_ratio", "batch_wait_max_tokens_ratio: " + ratio + "\n");
  }
  if (d.cuda_graphs) {
    y += "cuda_graph_config:\n";
    key("cuda_graph_config.enable_padding", "  enable_padding: true\n");
    key("cuda_graph_config.max_batch_size", "  max_batch_size: " + std::to_string(s.max_num_seqs) + "\n");
  }
  c.options_yaml = y;
  add({"--extra_llm_api_options", c.options_file});
  if (!s.async_scheduling) {
    note(
        "TensorRT-LLM forms each batch while the last one runs (its overlap scheduler, on by default), so a "
        "request arriving mid-step starts a step later than in this synchronous simulation (tycoon benchmark "
        "--async-scheduling simulates it)");
  }
  if (d.spec_decode) {
    note("speculative decoding (" + spec_words(d) + ") is not in the TensorRT-LLM options: their " +
         "speculative_config keys were not found documented at the version read");
  }
  if (pool.role != "server") {
    note(
        "TensorRT-LLM splits prefill and decode behind `trtllm-serve disaggregated -c CONFIG` with each worker's "
        "cache_transceiver_config; neither schema was read, so the pools' workers are written as aggregated "
        "servers: the split is not deployable from these files until both are written");
  }
  return c;
}

}  // namespace

std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") ==
                        std::string::npos)
    return a;
  std::string q = "'";
  for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

namespace {

std::string yaml_string(const std::string& s) { return nlohmann::json(s).dump(); }

// What the plan's expected figures are, for the plan and its README (one text for both).
std::string expected_figures_text(bool steady_state) {
  return steady_state
             ? "Steady-state figures (the simulation's warm-up and the users' common start cut): each run sends " +
                   std::to_string(kSteadyPlanRequestsPerUser) +
                   " requests per user, so that the first round, every user starting at once, is 2% of what it "
                   "measures and leaves the P90s to the steady state"
             : "The figures of InferenceX's run as the client command makes it (" +
                   std::to_string(kPlanRequestsPerUser) +
                   " requests per user after 2 of warm-up, every user starting at once: that first round is a tenth "
                   "of the requests and sets the P90 TTFT)";
}

void Writer::write_script() {
  std::string sh = "#!/bin/bash\n# " + point_.label + " (" + point_.source + ")\n";
  sh += "# Bare metal, one host: each replica of each pool on its own GPUs, ports from " +
        std::to_string(options_.port) + " up.\n# Written by `tycoon export` for " + launch_.engine + " " +
        launch_.checked_version + " (" + facts_ + ").\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n";
  int total_gpus = 0;
  for (const auto& c : out_.commands) total_gpus += c.replicas * c.gpus_per_replica;
  sh += "gpus=$(nvidia-smi -L | wc -l)\n[ \"$gpus\" -ge " + std::to_string(total_gpus) +
        " ] || { echo \"this deployment needs " + std::to_string(total_gpus) +
        " GPUs on one host, this one has $gpus: run its pools on several hosts\" >&2; exit 1; }\n";
  const bool split_vllm = out_.commands.size() > 1 && launch_.engine == "vllm";
  int gpu = 0, port = options_.port;
  for (const auto& c : out_.commands) {
    for (int r = 0; r < c.replicas; ++r) {
      std::string devices;
      for (int g = 0; g < c.gpus_per_replica; ++g) {
        if (g > 0) devices += ',';
        devices += std::to_string(gpu++);
      }
      sh += "CUDA_VISIBLE_DEVICES=" + devices + " ";
      // Each vLLM instance's NIXL side channel on its own ports (one per TP rank from the base):
      // vLLM's same-host example gives its prefiller 5600 and its decoder 5601.
      if (split_vllm) sh += "VLLM_NIXL_SIDE_CHANNEL_PORT=" + std::to_string(5600 + gpu - c.gpus_per_replica) + " ";
      sh += "\\\n ";
      for (std::size_t i = 0; i < c.argv.size(); ++i) {
        const bool is_port = i > 0 && c.argv[i - 1] == "--port";
        sh += ' ';
        sh += shell_quote(is_port ? std::to_string(port) : c.argv[i]);
      }
      sh += " > " + c.role + "-" + std::to_string(r) + ".log 2>&1 &\n";
      ++port;
    }
  }
  if (out_.commands.size() > 1) {
    sh +=
        "# The prefill and decode servers above need a router in front that sends each request to a prefill "
        "server, then a decode server (see README.md).\n";
  } else if (out_.commands.front().replicas > 1) {
    sh += "# The " + std::to_string(out_.commands.front().replicas) + " servers above (ports " +
          std::to_string(options_.port) + "-" + std::to_string(port - 1) +
          ") need a load balancer in front: the benchmark plan sends to one address.\n";
  }
  // The servers run until stopped: the first that exits (a crash, a port taken) stops the rest.
  sh +=
      "wait -n || true\necho \"a server exited (see its .log): stopping the others\" >&2\n"
      "kill $(jobs -p) 2>/dev/null || true\nexit 1\n";
  out_.run_script = sh;
}

void Writer::write_manifest() {
  const std::string base = name();
  std::string y = "# " + point_.label + " (" + point_.source + "), as Kubernetes objects.\n# " + launch_.engine + " " +
                  launch_.checked_version + ", image " + launch_.image + "; written by `tycoon export`.\n";
  if (out_.commands.size() > 1) {
    y += "# Disaggregated: a Deployment and a Service per pool. The router in front (vLLM's proxy, SGLang's\n"
         "# router, NVIDIA Dynamo or llm-d) is not written here: point it at both Services.\n";
  }
  for (const auto& c : out_.commands) {
    const std::string n = kubernetes_name(base + (c.role == "server" ? "" : "-" + c.role));
    if (!c.options_yaml.empty()) {
      y += "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + n + "-options\ndata:\n  " + c.options_file +
           ": |\n";
      std::string line;
      for (char ch : c.options_yaml) {
        if (ch == '\n') {
          y += "    " + line + "\n";
          line.clear();
        } else {
          line += ch;
        }
      }
    }
    y += "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + n + "\n  labels:\n    app: " + n +
         "\nspec:\n  replicas: " + std::to_string(c.replicas) + "\n  selector:\n    matchLabels:\n      app: " + n +
         "\n  template:\n    metadata:\n      labels:\n        app: " + n + "\n    spec:\n      containers:\n";
    y += "        - name: " + launch_.engine + "\n          image: " + yaml_string(launch_.image) + "\n";
    y += "          command:\n";
    for (const auto& a : c.argv) {
      const std::string v = (!c.options_file.empty() && a == c.options_file) ? "/config/" + c.options_file : a;
      y += "            - " + yaml_string(v) + "\n";
    }
    y += "          ports:\n            - containerPort: " + std::to_string(options_.port) + "\n";
    y += "          env:\n            - name: HF_TOKEN\n              valueFrom:\n                secretKeyRef:\n"
         "                  name: hf-token\n                  key: token\n                  optional: true\n";
    if (out_.commands.size() > 1 && launch_.engine == "vllm") {
      // NIXL's side channel on the pod's own address (its default, localhost, cannot be reached
      // from the other pool's pods).
      y += "            - name: VLLM_NIXL_SIDE_CHANNEL_HOST\n              valueFrom:\n                fieldRef:\n"
           "                  fieldPath: status.podIP\n";
    }
    y += "          resources:\n            limits:\n              nvidia.com/gpu: " +
         std::to_string(c.gpus_per_replica) + "\n";
    y += "          readinessProbe:\n            httpGet:\n              path: /health\n              port: " +
         std::to_string(options_.port) + "\n            periodSeconds: 10\n            failureThreshold: 180\n";
    y += "          volumeMounts:\n            - name: shm\n              mountPath: /dev/shm\n";
    if (!c.options_yaml.empty()) y += "            - name: options\n              mountPath: /config\n";
    y += "      volumes:\n        - name: shm\n          emptyDir:\n            medium: Memory\n";
    if (!c.options_yaml.empty())
      y += "        - name: options\n          configMap:\n            name: " + n + "-options\n";
    y += "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: " + n + "\nspec:\n  selector:\n    app: " + n +
         "\n  ports:\n    - port: " + std::to_string(options_.port) +
         "\n      targetPort: " + std::to_string(options_.port) + "\n";
  }
  out_.manifest_yaml = y;
}

void Writer::write_dynamo() {
  if (launch_.engine != "vllm" || out_.commands.size() < 2 || !launch_.dynamo) return;
  const auto& dy = *launch_.dynamo;
  std::string y = "# " + point_.label + " (" + point_.source + ") as an NVIDIA Dynamo " + dy.kind +
                  ":\n# a frontend routes each request to a prefill worker, then a decode worker. Set the image's\n"
                  "# ${DYNAMO_VERSION} to the Dynamo release you run (its vLLM must take these engine flags).\n"
                  "# Shape from " +
                  dy.source.substr(0, dy.source.find(" (")) + "; written by `tycoon export`.\n";
  y += "apiVersion: " + dy.api_version + "\nkind: " + dy.kind + "\nmetadata:\n  name: " + name() +
       "\nspec:\n  services:\n";
  y += "    Frontend:\n      componentType: frontend\n      replicas: 1\n      extraPodSpec:\n        mainContainer:\n"
       "          image: " +
       yaml_string(dy.image) + "\n";
  for (const auto& c : out_.commands) {
    const std::string service = c.role == "prefill" ? "VllmPrefillWorker" : "VllmDecodeWorker";
    y += "    " + service + ":\n      envFromSecret: hf-token-secret\n      componentType: worker\n" +
         "      subComponentType: " + c.role + "\n      replicas: " + std::to_string(c.replicas) +
         "\n      resources:\n        limits:\n          gpu: " + yaml_string(std::to_string(c.gpus_per_replica)) +
         "\n      extraPodSpec:\n        mainContainer:\n          image: " + yaml_string(dy.image) +
         "\n          command:\n";
    for (const auto& a : dy.worker_command) y += "            - " + yaml_string(a) + "\n";
    y += "          args:\n            - \"--model\"\n            - " + yaml_string(repo_) + "\n";
    // vLLM's engine flags as the server command has them, without the API server's own.
    for (std::size_t i = launch_.server_command.size() + 1; i < c.argv.size(); ++i) {
      if (c.argv[i] == "--host" || c.argv[i] == "--port") {
        ++i;
        continue;
      }
      y += "            - " + yaml_string(c.argv[i]) + "\n";
    }
    y += "            - \"--disaggregation-mode\"\n            - " + yaml_string(c.role) + "\n";
  }
  out_.dynamo_yaml = y;
}

void Writer::write_plan() {
  nlohmann::json plan;
  plan["point"] = point_.label;
  plan["source"] = point_.source;
  plan["client"] = launch_.bench_command;
  const bool vllm_client = launch_.engine == "vllm";
  plan["client_arguments_checked"] = !launch_.bench_arguments.empty();
  if (launch_.bench_arguments.empty()) {
    note("the benchmark client's arguments (" + launch_.engine +
         ") were not checked against a documented list: warm up with 2 requests per user first, run with outputs "
         "to their full length, and read P90 TTFT and TPOT from its output");
  }
  const int c = static_cast<int>(std::lround(std::clamp(point_.concurrency, 0.0, 1e9)));
  std::vector<int> levels;
  if (c > 0) {
    for (int l : {std::max(1, c / 2), c, 2 * c})
      if (std::find(levels.begin(), levels.end(), l) == levels.end()) levels.push_back(l);
  }
  nlohmann::json runs = nlohmann::json::array();
  const std::string port = std::to_string(options_.port);
  // Where the client sends: the router of a split deployment, else the Service (Kubernetes) or a
  // load balancer in front of the run script's ports (bare metal).
  const std::string target = out_.commands.size() > 1 ? "http://ROUTER:" + port : "http://" + name() + ":" + port;
  plan["base_url"] = {
      {"kubernetes", target},
      {"bare_metal", out_.commands.size() > 1 || out_.commands.front().replicas > 1
                         ? "http://LOAD_BALANCER:" + port + " (in front of every server run.sh starts; none is written)"
                         : "http://HOST:" + port}};
  for (int l : levels) {
    std::vector<std::string> argv = launch_.bench_command;
    argv.insert(argv.end(), {"--model", repo_, "--base-url", target, "--dataset-name", "random"});
    if (point_.input_tokens && point_.output_tokens) {
      // The simulation's random lengths are uniform on [r X, X] (InferenceX's range ratio r). vLLM's
      // client samples [L (1 - q), L (1 + q)] around its length L (vllm/benchmarks/datasets.py,
      // get_sampling_params): the same range is L = X (1 + r) / 2, q = (1 - r) / (1 + r).
      const double r = point_.config.workload.input_range_ratio;
      auto length = [&](std::int64_t x) {
        return vllm_client ? std::to_string(std::llround(static_cast<double>(x) * (1 + r) / 2)) : std::to_string(x);
      };
      argv.insert(argv.end(), {"--random-input-len", length(*point_.input_tokens), "--random-output-len",
                               length(*point_.output_tokens), "--random-range-ratio",
                               vllm_client ? fixed((1 - r) / (1 + r), 4) : fixed(r, 2)});
    }
    // InferenceX's runs: 10 requests per user, after 2 per user of warm-up, every output to its
    // full length (benchmark_lib.sh); 50 per user where the expected figures are steady-state ones.
    const int per_user = point_.steady_state_figures ? kSteadyPlanRequestsPerUser : kPlanRequestsPerUser;
    argv.insert(argv.end(), {"--max-concurrency", std::to_string(l), "--num-prompts", std::to_string(per_user * l)});
    if (vllm_client) {
      argv.insert(argv.end(), {"--num-warmups", std::to_string(2 * l), "--ignore-eos", "--percentile-metrics",
                               "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,99"});
    }
    argv.insert(argv.end(), {"--seed", "1"});
    if (!launch_.bench_arguments.empty()) {
      for (const auto& a : argv) {
        if (a.size() > 2 && a.rfind("--", 0) == 0 && !launch_.bench_arguments.count(a)) {
          throw std::logic_error("export wrote the benchmark flag " + a + ", which " + facts_ + " does not document");
        }
      }
    }
    runs.push_back({{"concurrency", l}, {"argv", argv}, {"at_the_point", l == c}});
  }
  plan["runs"] = runs;
  if (!point_.input_tokens && !levels.empty()) {
    note(
        "the benchmark plan's runs use the client's random prompts at its default lengths: the simulated "
        "workload (" +
        point_.workload + ") is not a random dataset; replay its trace or sessions instead");
  }
  nlohmann::json expected = nlohmann::json::array();
  for (const auto& e : point_.expected) {
    expected.push_back(
        {{"metric", e.metric}, {"unit", e.unit}, {"value", e.value}, {"low", std::max(0.0, e.low)}, {"high", e.high}});
  }
  plan["expected_at_the_point"] = expected;
  plan["expected_figures"] = expected_figures_text(point_.steady_state_figures);
  plan["provenance"] = point_.provenance;
  plan["workload"] = point_.workload;
  plan["pass_rule"] =
      "at the point's concurrency, a measured figure inside [low, high] is consistent with the simulation (the "
      "interval is mostly the model's own error for this provenance, so a wide one says little); outside it, the "
      "simulation is wrong for this deployment: record the measurement, with the engine release it ran, as a "
      "calibration point (docs/calibration.md) and re-run the pick with it";
  if (levels.empty()) plan["note"] = "no concurrency chosen (a scenario's export: pass --concurrency)";
  out_.benchmark_plan = plan;
}

void Writer::write_summary() {
  nlohmann::json s;
  s["point"] = point_.label;
  s["source"] = point_.source;
  s["engine"] = {{"id", launch_.engine},
                 {"checked_version", launch_.checked_version},
                 {"checked_commit", launch_.checked_commit},
                 {"image", launch_.image},
                 {"facts", facts_},
                 {"sources", launch_.sources}};
  nlohmann::json cmds = nlohmann::json::array();
  for (const auto& c : out_.commands) {
    nlohmann::json cj = {
        {"role", c.role}, {"replicas", c.replicas}, {"gpus_per_replica", c.gpus_per_replica}, {"argv", c.argv}};
    if (!c.options_file.empty()) cj["options_file"] = c.options_file;
    cmds.push_back(cj);
  }
  s["commands"] = cmds;
  s["notes"] = out_.notes;
  const auto& m = *point_.config.deployment.model;
  if (!options_.model_path.empty()) {
    s["model_repository"] = {{"repo", options_.model_path}, {"source", "--model-path"}};
  } else if (auto it = repos_.models.find(m.id); it != repos_.models.end()) {
    s["model_repository"] = {{"repo", it->second.repo}, {"source", it->second.source}};
  }
  out_.summary = s;

  std::string r = "# " + point_.label + "\n\nFrom " + point_.source + ". Engine: " + launch_.engine + " " +
                  launch_.checked_version + " (image `" + launch_.image +
                  "`): every flag below is in the argument list of " + facts_ +
                  ", read from the engine's source at that " +
                  "version (its `sources` say how complete the list is). The simulation models " +
                  point_.config.deployment.engine->name + " " + point_.config.deployment.engine->version +
                  " (hardware_db/engines/" + launch_.engine + ".json).\n\n";
  for (const auto& c : out_.commands) {
    r += "## " + c.role + ": " + std::to_string(c.replicas) + " replica" + (c.replicas > 1 ? "s" : "") + " of " +
         std::to_string(c.gpus_per_replica) + " GPU" + (c.gpus_per_replica > 1 ? "s" : "") + "\n\n```sh\n";
    for (std::size_t i = 0; i < c.argv.size(); ++i) {
      if (i > 0) r += ' ';
      r += shell_quote(c.argv[i]);
    }
    r += "\n```\n\n";
    if (!c.options_yaml.empty()) r += "`" + c.options_file + "`:\n\n```yaml\n" + c.options_yaml + "```\n\n";
  }
  if (!out_.notes.empty()) {
    r += "## What the commands leave out\n\n";
    for (const auto& n : out_.notes) r += "- " + n + "\n";
    r += "\n";
  }
  r += "## Files\n\n- `run.sh`: every replica on one host's GPUs\n- `deployment.yaml`: Kubernetes Deployments and "
       "Services\n" +
       (out_.dynamo_yaml.empty()
            ? std::string()
            : "- `dynamo.yaml`: the pools behind NVIDIA Dynamo's frontend (a DynamoGraphDeployment)\n") +
       "- `benchmark_plan.json`: the runs that confirm the point, and the figures the simulation expects "
       "(provenance: " +
       (point_.provenance.empty() ? std::string("none") : point_.provenance) +
       ")\n- `export.json`: all of it, with sources\n";
  if (!point_.expected.empty()) {
    r += "\n## Expected at " + fixed(point_.concurrency, point_.concurrency == std::floor(point_.concurrency) ? 0 : 1) +
         " users\n\n| figure | value | interval |\n|---|---|---|\n";
    for (const auto& e : point_.expected) {
      r += "| " + e.metric + " | " + fixed(e.value, 1) + " " + e.unit + " | " + fixed(std::max(0.0, e.low), 1) + " – " +
           fixed(e.high, 1) + " |\n";
    }
    r += "\n" + expected_figures_text(point_.steady_state_figures) + ".\n";
  }
  out_.readme = r;
}

ExportBundle Writer::run() {
  const auto& dep = point_.config.deployment;
  if (dep.engine->id != launch_.engine) {
    throw InputError("the deployment runs on " + dep.engine->id + ", the launch facts are " + launch_.engine + "'s");
  }
  out_.engine = launch_.engine;
  out_.engine_version = launch_.checked_version;
  for (const auto& pool : pools()) {
    if (pool.deployment->engine->id != launch_.engine) {
      throw InputError("the " + pool.role + " pool runs on " + pool.deployment->engine->id +
                       ": one export writes one engine");
    }
    LaunchCommand c = launch_.engine == "vllm" ? vllm(pool) : launch_.engine == "sglang" ? sglang(pool) : trtllm(pool);
    c.role = pool.role;
    c.replicas = pool.replicas;
    c.gpus_per_replica = pool.deployment->gpus_per_replica();
    // Every flag documented: a rule above that writes another is a bug, never the user's input.
    if (auto bad = undocumented_arguments(c.argv, launch_); !bad.empty()) {
      throw std::logic_error("export wrote " + bad.front() + ", which " + launch_.file + " does not document");
    }
    out_.commands.push_back(std::move(c));
  }
  if (out_.commands.size() > 1 && launch_.engine == "vllm") {
    note(
        "vLLM's prefill and decode servers need a proxy in front that sends each request to a prefill server, "
        "then a decode server (vLLM's disaggregated-prefill examples ship one; NVIDIA Dynamo and llm-d are "
        "production routers)");
  }
  if (point_.config.router != serving::RouterKind::kRoundRobin && point_.config.replicas > 1 &&
      !point_.config.disaggregated) {
    note("the simulation routed with " +
         std::string(serving::kRouterNames[static_cast<std::size_t>(point_.config.router)]) +
         "; a Kubernetes Service picks a backend per connection, at random: put that router in front for the same "
         "behaviour");
  }
  write_script();
  write_manifest();
  write_dynamo();
  write_plan();
  write_summary();
  return std::move(out_);
}

}  // namespace

std::vector<std::string> undocumented_arguments(const std::vector<std::string>& argv,
                                                const data::EngineLaunch& launch) {
  std::vector<std::string> bad;
  const std::size_t first = launch.server_command.size();
  for (std::size_t i = first; i < argv.size(); ++i) {
    const auto& a = argv[i];
    if (a.size() < 2 || a[0] != '-') continue;
    if (!launch.documents(a)) {
      bad.push_back(a);
      continue;
    }
    if (i + 1 < argv.size() && !launch.accepts(a, argv[i + 1])) bad.push_back(a + " " + argv[i + 1]);
  }
  return bad;
}

std::string kubernetes_name(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() >= 40) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.empty()) return "tycoon";
  // A Service name (DNS-1035) starts with a letter.
  if (out[0] >= '0' && out[0] <= '9') out = ("t-" + out).substr(0, 40);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

ExportBundle export_deployment(const ExportPoint& point, const data::EngineLaunch& launch,
                               const data::ModelRepos& repos, const ExportOptions& options) {
  return Writer(point, launch, repos, options).run();
}

}  // namespace tycoon::analysis
