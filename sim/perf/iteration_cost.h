// predict_iteration: how long one engine step takes on one replica, and where the time goes.
// A pure function of the batch, the deployment and the chip's calibration profile.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/perf/calibration_profile.h"
#include "sim/perf/deployment.h"
#include "sim/perf/op_class.h"

namespace tycoon::perf {

// One prefill chunk: `num_new_tokens` computed now after `num_context_tokens` already cached.
struct PrefillChunk {
  std::int64_t num_new_tokens = 0;
  std::int64_t num_context_tokens = 0;
  bool last_chunk = true;  // the prompt completes: its last token produces logits
};

// A batch: prefill chunks plus decoding sequences (context length before this step each).
// With speculative decoding each decode sequence verifies 1 + k tokens.
struct BatchShape {
  std::span<const PrefillChunk> prefills;
  std::span<const std::int64_t> decode_context_tokens;
};

struct OpCost {
  double time_s = 0;
  double compute_s = 0;  // roofline compute term (before max)
  double memory_s = 0;   // roofline memory term
  double flop = 0;
  double bytes = 0;
  bool memory_bound() const { return memory_s >= compute_s; }
};

struct IterationCost {
  std::array<OpCost, kNumOpClasses> ops{};
  double total_s = 0;
  std::int64_t num_tokens = 0;  // tokens through the target model this step
  std::int64_t num_decode_seqs = 0;
  Provenance provenance = Provenance::kDatasheet;
  // The GPU's own work this step, and (launched eagerly) the CPU time to issue its kernels; the
  // step is host-bound when the second is the longer.
  double gpu_s = 0;
  double host_launch_s = 0;

  const OpCost& op(OpClass c) const { return ops[static_cast<std::size_t>(c)]; }
  // At the typical launch cost the profile gives (validation also asks about the slowest).
  bool host_bound() const { return host_launch_s > gpu_s; }
  double iteration_s() const { return total_s; }
};

IterationCost predict_iteration(const BatchShape& batch, const Deployment& d, const CalibrationProfile& cal);

// What the serving simulator keeps of a step: time by op class, total, provenance.
struct DecodeStepTimes {
  std::array<double, kNumOpClasses> time_s{};
  double total_s = 0;
  Provenance provenance = Provenance::kDatasheet;
};

// Decode-only steps of a fixed number of sequences, priced without the full model: every op but
// decode attention depends on the batch size alone, and decode attention on each attention layer
// group's attended keys summed over the sequences (plus, for a sparse-attention indexer, the
// summed contexts). evaluate() runs the same code as predict_iteration on the same numbers, so
// its result is bit for bit predict_iteration's for any decode-only batch with those sums — the
// serving simulator's fast path relies on that (tests/test_serving_fast_forward.cpp checks it).
class DecodeStepModel {
 public:
  DecodeStepModel() = default;
  // Precondition: num_decode >= 1. `d` and `cal` must outlive the model.
  DecodeStepModel(const Deployment& d, const CalibrationProfile& cal, std::int64_t num_decode);

  std::int64_t num_decode() const { return num_decode_; }
  // Layer groups with decode attention, in model order.
  std::size_t num_groups() const { return groups_.size(); }
  const data::Mixer& mixer(std::size_t g) const { return *groups_[g].mixer; }
  // Tokens verified per sequence and step (1 + draft tokens).
  double q_per_seq() const { return q_per_seq_; }
  // Keys a sequence with `context_tokens` cached before the step attends to in group `g` (what
  // predict_iteration sums over the batch).
  double keys_of(std::size_t g, std::int64_t context_tokens) const;

  // The step's cost; `keys_total[g]` and `index_total[g]` summed over the batch as
  // predict_iteration sums them, `max_context` = longest context + q_per_seq().
  void evaluate(std::span<const double> keys_total, std::span<const double> index_total, double max_context,
                IterationCost& out) const;
  // The same step's op times, total and provenance only (the same bits as evaluate()'s), without
  // the other fields: what a simulator needs per step, at a fraction of the cost.
  void step_times(std::span<const double> keys_total, std::span<const double> index_total, double max_context,
                  DecodeStepTimes& out) const;
  // The provenance step_times() gives for a step with that `max_context` (it depends on nothing
  // else): for callers that memoise the times.
  Provenance step_provenance(double max_context) const;

 private:
  struct Group {
    const data::Mixer* mixer = nullptr;
    double heads = 0, qk_dim = 0, v_dim = 0, kv_values_per_key = 0;
    double layers = 0;
  };
  const Deployment* d_ = nullptr;
  const CalibrationProfile* cal_ = nullptr;
  std::int64_t num_decode_ = 0;
  double q_per_seq_ = 1, kv_b_ = 2, decode_tokens_ = 0, engine_eff_ = 1;
  double T_ = 0, seqs_ = 0, kernels_ = 0;
  bool graphed_ = false, chip_matches_ = false, outside_validation_ = false;
  IterationCost fixed_;  // every op but decode attention, before finish_step
  std::array<double, kNumOpClasses> fixed_time_s_{};
  std::vector<Group> groups_;
  // step_times()'s constants: what finish_times computes the same way every step (each value
  // by the same operations, so the same bits). `done_time_s_` holds every op class's final time
  // but decode attention's (and launch gaps' when launched eagerly, which depend on the GPU time).
  double peak_half_ = 0, inv_peak_half_ = 0, bw_ = 0;
  std::array<double, kNumOpClasses> done_time_s_{};
  std::array<double, kNumOpClasses> gpu_terms_{};  // time_s as finish_times sums it into gpu_s
  double gpu_prefix_ = 0, total_prefix_ = 0;       // those sums over the op classes before decode attention
  double per_kernel_launch_s_ = 0;
  mutable std::size_t curve_hint_ = 0;  // the attention-efficiency segment of the last step
};

// Convenience for tests and the CLI: a uniform decode batch or a single prefill.
IterationCost predict_decode(const Deployment& d, const CalibrationProfile& cal, int batch, std::int64_t context);
IterationCost predict_prefill(const Deployment& d, const CalibrationProfile& cal, std::int64_t tokens,
                              std::int64_t context = 0, int num_prompts = 1);

}  // namespace tycoon::perf
