// `tycoon predict`: the cost of one engine iteration and its breakdown, plus the memory plan.
#include <array>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/core/input_error.h"
#include "sim/perf/bottleneck.h"
#include "sim/perf/iteration_cost.h"
#include "sim/perf/memory_plan.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::cli {

namespace {

struct PredictOptions {
  DeploymentOptions deployment;
  int decode_batch = 0;
  std::int64_t context = 0;
  std::int64_t prefill_tokens = 0;
  int num_prompts = 1;
  bool json = false;
};

}  // namespace

CommandRunner add_predict_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<PredictOptions>();
  auto* sub = app.add_subcommand("predict", "Predict one engine iteration: time, breakdown by op class, memory plan");
  add_deployment_options(*sub, o->deployment);
  sub->add_option("--decode-batch", o->decode_batch, "Decoding sequences in the batch")->check(CLI::Range(0, 1 << 20));
  sub->add_option("--context", o->context, "Context tokens of each decoding sequence (or before the prefill)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  sub->add_option("--prefill-tokens", o->prefill_tokens, "New prompt tokens per prefill")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
  sub->add_option("--prompts", o->num_prompts, "Prompts prefilled together")->check(CLI::Range(1, 1 << 16));
  sub->add_flag("--json", o->json, "One JSON object on stdout");
  return [o, &global]() {
    auto catalog = load_catalog_for(global);
    ResolvedDeployment rd = resolve_deployment(catalog, o->deployment);
    const auto& d = rd.deployment;
    if (o->decode_batch == 0 && o->prefill_tokens == 0) {
      throw core::InputError("predict needs --decode-batch N or --prefill-tokens N");
    }
    const std::int64_t longest = o->context + o->prefill_tokens;
    if (d.model->beyond_context_window(longest)) {
      throw core::InputError("--context " + std::to_string(o->context) +
                             (o->prefill_tokens > 0 ? " + --prefill-tokens " + std::to_string(o->prefill_tokens) : "") +
                             " exceeds " + d.model->name + "'s context window of " +
                             std::to_string(d.model->max_context_tokens) + " tokens");
    }
    auto cal = perf::calibration_for(catalog, *d.hardware);
    std::vector<perf::PrefillChunk> chunks;
    if (o->prefill_tokens > 0) {
      chunks.assign(static_cast<std::size_t>(o->num_prompts), perf::PrefillChunk{o->prefill_tokens, o->context, true});
    }
    std::vector<std::int64_t> decodes(static_cast<std::size_t>(o->decode_batch), o->context);
    auto cost = perf::predict_iteration(perf::BatchShape{chunks, decodes}, d, cal);
    // The memory plan at the recipe's batch limits, as a benchmark of this deployment plans it.
    auto mem = perf::plan_memory(d, rd.scheduler.max_num_batched_tokens, rd.scheduler.max_num_seqs);
    // And whether this step's own sequences fit the KV cache that plan leaves: each decoding
    // sequence holds its context and the tokens it verifies, each prompt its context and new
    // tokens (plus any fixed per-sequence state). A step that cannot be held is still timed, but
    // says so: it is not a step the engine can run.
    const double verify = d.spec_decode ? 1.0 + d.spec_decode->num_draft_tokens : 1.0;
    const double batch_kv_bytes =
        static_cast<double>(o->decode_batch) *
            (mem.kv_bytes_per_token * (static_cast<double>(o->context) + verify) + mem.fixed_bytes_per_sequence) +
        (o->prefill_tokens > 0 ? static_cast<double>(o->num_prompts) *
                                     (mem.kv_bytes_per_token * static_cast<double>(o->context + o->prefill_tokens) +
                                      mem.fixed_bytes_per_sequence)
                               : 0.0);
    const bool batch_fits = mem.fits && batch_kv_bytes <= mem.kv_capacity_bytes;
    if (mem.fits && !batch_fits) {
      char why[256];
      std::snprintf(why, sizeof why,
                    "the step's sequences need %.3g GB of KV cache per GPU; the cache holds %.1f GB (%lld tokens)",
                    batch_kv_bytes / 1e9, mem.kv_capacity_bytes / 1e9, static_cast<long long>(mem.kv_capacity_tokens));
      mem.reason = why;
    }

    if (o->json) {
      nlohmann::json breakdown = nlohmann::json::object(), bound = nlohmann::json::object();
      for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) {
        const auto& op = cost.ops[i];
        if (op.time_s <= 0) continue;
        breakdown[std::string(perf::kOpClassNames[i])] = op.time_s;
        bound[std::string(perf::kOpClassNames[i])] = perf::kOpBoundNames[static_cast<std::size_t>(perf::bound_of(op))];
      }
      nlohmann::json out = {{"model", d.model->id},
                            {"hardware", d.hardware->id},
                            {"engine", d.engine->id},
                            {"precision", to_string(d.precision)},
                            {"tensor_parallel", d.tensor_parallel},
                            {"expert_parallel", d.expert_parallel},
                            {"iteration_s", cost.total_s},
                            {"num_tokens", cost.num_tokens},
                            {"breakdown_s", breakdown},
                            {"bound", bound},
                            {"provenance", perf::to_string(cost.provenance)},
                            {"calibration_source", cal.source},
                            {"memory",
                             {{"weight_bytes_per_gpu", mem.weight_bytes},
                              {"kv_bytes_per_token_per_gpu", mem.kv_bytes_per_token},
                              {"fixed_bytes_per_sequence_per_gpu", mem.fixed_bytes_per_sequence},
                              {"kv_capacity_bytes_per_gpu", mem.kv_capacity_bytes},
                              {"kv_capacity_tokens", mem.kv_capacity_tokens},
                              {"batch_kv_bytes_per_gpu", batch_kv_bytes},
                              {"weights_fit", mem.fits},
                              {"fits", batch_fits}}}};
      if (!batch_fits) out["memory"]["reason"] = mem.reason;
      if (d.mxfp4_backend) out["mxfp4_backend"] = *d.mxfp4_backend;
      if (const auto why = perf::outside_validation(d); !why.empty()) out["outside_validation"] = why;
      std::cout << out.dump(2) << "\n";
    } else {
      std::printf("%s on %d x %s, %s, %s weights — %s\n", d.model->name.c_str(), d.tensor_parallel,
                  d.hardware->name.c_str(), d.engine->name.c_str(), std::string(to_string(d.precision)).c_str(),
                  std::string(perf::to_string(cost.provenance)).c_str());
      if (const auto why = perf::outside_validation(d); !why.empty()) {
        std::printf("outside the validation set: %s\n", why.c_str());
      }
      std::printf("iteration: %.3f ms for %lld tokens\n\n", cost.total_s * 1e3,
                  static_cast<long long>(cost.num_tokens));
      std::printf("  %-18s %10s %6s %8s %12s %12s\n", "op class", "ms", "share", "bound", "GFLOP", "MB");
      std::array<double, perf::kNumOpClasses> op_time_s{};
      for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) op_time_s[i] = cost.ops[i].time_s;
      for (const auto& sh : perf::time_shares(op_time_s)) {
        const auto& op = cost.op(sh.op);
        std::printf("  %-18s %10.4f %5.1f%% %8s %12.2f %12.2f\n", std::string(perf::to_string(sh.op)).c_str(),
                    op.time_s * 1e3, 100 * sh.share,
                    std::string(perf::kOpBoundNames[static_cast<std::size_t>(perf::bound_of(op))]).c_str(),
                    op.flop / 1e9, op.bytes / 1e6);
      }
      std::printf("\nmemory per GPU: weights %.1f GB, KV %.1f KB/token, KV capacity %.1f GB = %lld tokens%s\n",
                  mem.weight_bytes / 1e9, mem.kv_bytes_per_token / 1e3, mem.kv_capacity_bytes / 1e9,
                  static_cast<long long>(mem.kv_capacity_tokens), batch_fits ? "" : "  (DOES NOT FIT)");
      if (!batch_fits) std::printf("%s\n", mem.reason.c_str());
      std::printf("calibration: %s\n", cal.source.c_str());
    }
    return kExitOk;
  };
}

}  // namespace tycoon::cli
