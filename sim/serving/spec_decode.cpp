#include "sim/serving/spec_decode.h"
#include "sim/core/input_error.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tycoon::serving {

namespace {

double mean_for(double p, int k) {
  double sum = 0, term = 1;
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term *= p;
  }
  return sum;
}

}  // namespace

AcceptanceSampler::AcceptanceSampler(int num_draft_tokens, double acceptance_length) : k_(num_draft_tokens) {
  if (k_ < 0 || !(acceptance_length >= 1.0) || acceptance_length > k_ + 1.0) {
    throw core::InputError("acceptance length " + std::to_string(acceptance_length) +
                           " must lie in [1, draft tokens + 1 = " + std::to_string(k_ + 1) + "]");
  }
  // mean_for is increasing in p on [0, 1]: bisection to double precision.
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-16; ++i) {
    double mid = 0.5 * (lo + hi);
    (mean_for(mid, k_) < acceptance_length ? lo : hi) = mid;
  }
  p_ = acceptance_length >= k_ + 1.0 ? 1.0 : 0.5 * (lo + hi);
  probabilities_.resize(static_cast<std::size_t>(k_) + 1);
  double reach = 1;  // P(first j drafts accepted)
  for (int j = 0; j < k_; ++j) {
    probabilities_[static_cast<std::size_t>(j)] = reach * (1 - p_);
    reach *= p_;
  }
  probabilities_[static_cast<std::size_t>(k_)] = reach;
  thresholds_.resize(static_cast<std::size_t>(k_));
  double cum = 0;
  for (int j = 0; j < k_; ++j) {
    cum += probabilities_[static_cast<std::size_t>(j)];
    thresholds_[static_cast<std::size_t>(j)] =
        cum >= 1.0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(std::ldexp(cum, 64));
  }
}

double AcceptanceSampler::mean() const {
  double m = 0;
  for (std::size_t j = 0; j < probabilities_.size(); ++j) m += static_cast<double>(j + 1) * probabilities_[j];
  return m;
}

}  // namespace tycoon::serving
