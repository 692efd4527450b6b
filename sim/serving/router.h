// Picks the replica for each arriving request.
//   round-robin        — replicas in turn;
//   least-outstanding  — fewest waiting + running requests (ties: the next in turn);
//   prefix-affinity    — the replica whose prefix cache holds the longest prefix of the prompt,
//                        when that prefix is at least half the prompt and the replica is not
//                        overloaded; otherwise least-outstanding. (SGLang's cache-aware router
//                        works this way: a match threshold, then load balancing.)
#pragma once

#include <cstdint>
#include <vector>

#include "sim/serving/replica.h"
#include "sim/serving/serving_sim.h"

namespace tycoon::serving {

// prefix-affinity follows the cache when the cached prefix covers at least this share of the
// prompt (SGLang router's cache_threshold default, 0.5) ...
inline constexpr double kAffinityMinMatchShare = 0.5;
// ... unless the preferred replica has more than kAffinityImbalanceFactor x (min outstanding)
// + kAffinityImbalanceSlack outstanding requests.
inline constexpr std::int64_t kAffinityImbalanceFactor = 2;
inline constexpr std::int64_t kAffinityImbalanceSlack = 4;

class Router {
 public:
  explicit Router(RouterKind kind) : kind_(kind) {}
  std::size_t route(const Request& r, const std::vector<Replica>& replicas);

 private:
  // Fewest outstanding; among equals the first at or after the rotating start.
  std::size_t least_outstanding(const std::vector<Replica>& replicas);

  RouterKind kind_;
  std::size_t next_ = 0;
};

}  // namespace tycoon::serving
