// Speculative decoding: how many tokens one verification step emits per sequence.
//
// A step verifies k draft tokens plus the bonus position, so it emits between 1 and k + 1
// tokens. Drafts are accepted left to right, each with the same probability p, until the first
// rejection (the standard i.i.d. acceptance model of Leviathan et al. 2023): P(emit j) =
// p^(j-1) (1 - p) for j <= k and P(emit k + 1) = p^k, whose mean is 1 + p + ... + p^k. We solve
// that mean for p given the configured acceptance length (seed 000: 2.31 for GPT-OSS-120B with
// 3 EAGLE-3 drafts), so draws average the configured value exactly in expectation.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/rng.h"

namespace tycoon::serving {

class AcceptanceSampler {
 public:
  // Throws std::invalid_argument unless 1 <= acceptance_length <= num_draft_tokens + 1.
  AcceptanceSampler(int num_draft_tokens, double acceptance_length);

  // Tokens emitted by one step of one sequence, in [1, k + 1]; one raw draw from `rng`.
  int draw(core::RngStream& rng) const {
    const std::uint64_t u = rng.next_u64();
    // thresholds_ ascend (cumulative probabilities), so the first j with u < thresholds_[j] is
    // the number of thresholds at or below u: counted without a branch per draft.
    int j = 0;
    for (std::uint64_t t : thresholds_) j += u >= t ? 1 : 0;
    return j + 1;
  }

  int num_draft_tokens() const { return k_; }
  double acceptance_probability() const { return p_; }
  // The distribution's exact mean (equals the configured acceptance length to ~1e-12).
  double mean() const;

 private:
  int k_;
  double p_;
  std::vector<double> probabilities_;      // P(emit j + 1), j = 0..k
  std::vector<std::uint64_t> thresholds_;  // cumulative, scaled to 2^64
};

}  // namespace tycoon::serving
