#include "sim/perf/bottleneck.h"

namespace tycoon::perf {

OpBound bound_of(const OpCost& op) {
  if (op.flop <= 0 && op.bytes <= 0) return OpBound::kOverhead;
  return op.memory_bound() ? OpBound::kMemory : OpBound::kCompute;
}

DecodeBottleneck decode_bottleneck(const IterationCost& decode) {
  const double overhead_s = decode.op(OpClass::kLaunchOverhead).time_s + decode.op(OpClass::kEngineOverhead).time_s;
  if (overhead_s > kOverheadDominatesShare * decode.total_s) return DecodeBottleneck::kOverheads;
  const double weights_s = decode.op(OpClass::kDenseFfn).time_s + decode.op(OpClass::kMoeExperts).time_s +
                           decode.op(OpClass::kAttentionProj).time_s;
  if (decode.op(OpClass::kAttentionDecode).time_s > weights_s) return DecodeBottleneck::kKvCacheReads;
  return DecodeBottleneck::kWeightReads;
}

std::string_view advice(DecodeBottleneck b) {
  switch (b) {
    case DecodeBottleneck::kOverheads:
      return "Overheads dominate the decode step: CUDA graphs, a leaner engine or bigger batches help most.";
    case DecodeBottleneck::kKvCacheReads:
      return "Reading the KV cache dominates decode: shorter contexts, an fp8 KV cache or prefix reuse help; more "
             "sequences per batch will not.";
    case DecodeBottleneck::kWeightReads:
      return "Reading the weights dominates decode: a bigger batch shares each read among more users; fp8/fp4 "
             "weights or speculative decoding make each read produce more tokens.";
  }
  return "";
}

}  // namespace tycoon::perf
