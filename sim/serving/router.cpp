#include "sim/serving/router.h"

#include <algorithm>

namespace tycoon::serving {

std::size_t Router::least_outstanding(const std::vector<Replica>& replicas) {
  const std::size_t n = replicas.size();
  std::size_t best = next_ % n;
  for (std::size_t k = 1; k < n; ++k) {
    std::size_t i = (next_ + k) % n;
    if (replicas[i].num_outstanding() < replicas[best].num_outstanding()) best = i;
  }
  next_ = (best + 1) % n;
  return best;
}

std::size_t Router::route(const Request& r, const std::vector<Replica>& replicas) {
  if (replicas.size() == 1) return 0;
  switch (kind_) {
    case RouterKind::kRoundRobin: {
      std::size_t i = next_;
      next_ = (next_ + 1) % replicas.size();
      return i;
    }
    case RouterKind::kLeastOutstanding:
      return least_outstanding(replicas);
    case RouterKind::kPrefixAffinity: {
      std::size_t best = 0;
      std::int64_t best_hits = -1;
      for (std::size_t i = 0; i < replicas.size(); ++i) {
        std::int64_t hits = replicas[i].cached_prefix_blocks(r);
        if (hits > best_hits ||
            (hits == best_hits && replicas[i].num_outstanding() < replicas[best].num_outstanding())) {
          best = i;
          best_hits = hits;
        }
      }
      const double matched = static_cast<double>(best_hits * replicas[best].params().page_tokens);
      std::int64_t min_outstanding = replicas[0].num_outstanding();
      for (const auto& rep : replicas) min_outstanding = std::min(min_outstanding, rep.num_outstanding());
      const bool overloaded =
          replicas[best].num_outstanding() > kAffinityImbalanceFactor * min_outstanding + kAffinityImbalanceSlack;
      if (matched >= kAffinityMinMatchShare * static_cast<double>(r.input_tokens) && !overloaded) return best;
      return least_outstanding(replicas);
    }
  }
  return 0;
}

}  // namespace tycoon::serving
