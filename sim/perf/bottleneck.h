// What bounds an op and a decode step — the profiler's reading of a cost breakdown, a pure
// function of it, so that the panel displays the model's verdict and never judges by itself.
#pragma once

#include <array>
#include <string_view>

#include "sim/perf/iteration_cost.h"

namespace tycoon::perf {

// What an op's time is spent on: overhead (no FLOPs and no bytes: launches, the engine's CPU),
// moving bytes (the roofline's memory term is the larger), or compute.
enum class OpBound { kOverhead, kMemory, kCompute };
inline constexpr std::array<std::string_view, 3> kOpBoundNames = {"overhead", "memory", "compute"};

OpBound bound_of(const OpCost& op);

// What dominates a decode step, checked in this order: overheads (kernel launches and the
// engine's CPU time) above kOverheadDominatesShare of the step; else reading the KV cache
// (attention over the context) when it takes longer than reading the weights (dense FFN, MoE
// experts and the attention projections); else reading the weights.
enum class DecodeBottleneck { kOverheads, kKvCacheReads, kWeightReads };

// Overheads dominate above this share of the step: then no change of the batch or the weights
// moves the step as much as removing them.
inline constexpr double kOverheadDominatesShare = 0.3;

DecodeBottleneck decode_bottleneck(const IterationCost& decode);

// One sentence for the player: what dominates and which levers help.
std::string_view advice(DecodeBottleneck b);

}  // namespace tycoon::perf
