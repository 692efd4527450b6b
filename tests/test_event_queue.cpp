// The one event order of the simulator: (time, phase, seq), FIFO among equals (STYLE.md 5).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"

using namespace tycoon::core;

namespace {

Time at_ns(std::int64_t ns) { return Time{Duration{ns}}; }

}  // namespace

TEST_CASE("events at the same time and phase pop in the order they were pushed") {
  EventQueue<int> q;
  // 1000 pushes at one instant: any heap without the seq tie-break would scramble them.
  for (int i = 0; i < 1000; ++i) q.push(at_ns(5), 0, i);
  for (int i = 0; i < 1000; ++i) CHECK(q.pop().payload == i);
  CHECK(q.empty());
}

TEST_CASE("time orders first, then phase, then push order") {
  EventQueue<char> q;
  q.push(at_ns(20), 0, 'e');
  q.push(at_ns(10), 2, 'c');
  q.push(at_ns(10), 1, 'a');
  q.push(at_ns(10), 2, 'd');
  q.push(at_ns(10), 1, 'b');
  std::string order;
  while (!q.empty()) order += q.pop().payload;
  CHECK(order == "abcde");
}

TEST_CASE("random pushes interleaved with pops come out in (time, phase, seq) order") {
  EventQueue<std::uint64_t> q;
  RngStream rng(42, RngPurpose::kArrivals);
  using Key = std::tuple<std::int64_t, std::uint8_t, std::uint64_t>;
  std::vector<Key> popped;
  std::int64_t now = 0;
  for (int round = 0; round < 2000; ++round) {
    // Handlers schedule strictly after the current instant (a step takes at least 1 ns), so
    // the popped sequence is globally sorted; the small time range makes ties common.
    int pushes = static_cast<int>(rng.uniform_int(0, 3));
    for (int i = 0; i < pushes; ++i) {
      auto seq = q.num_pushed();
      q.push(at_ns(now + rng.uniform_int(1, 4)), static_cast<std::uint8_t>(rng.uniform_int(0, 2)), seq);
    }
    if (!q.empty() && rng.bernoulli(0.6)) {
      auto e = q.pop();
      now = e.at.time_since_epoch().count();
      popped.emplace_back(now, e.phase, e.payload);
    }
  }
  while (!q.empty()) {
    auto e = q.pop();
    popped.emplace_back(e.at.time_since_epoch().count(), e.phase, e.payload);
  }
  CHECK(popped.size() == q.num_pushed());
  CHECK(std::is_sorted(popped.begin(), popped.end()));
}

TEST_CASE("seconds cross into event time once, rounded to the nearest nanosecond") {
  CHECK(from_seconds(0.020739).count() == 20'739'000);
  CHECK(from_seconds(1.4e-9).count() == 1);
  CHECK(from_seconds(1.6e-9).count() == 2);
  CHECK(to_seconds(Duration{1'500'000'000}) == doctest::Approx(1.5));
  CHECK_THROWS_AS(from_seconds(-1.0), std::invalid_argument);
  CHECK_THROWS_AS(from_seconds(std::nan("")), std::invalid_argument);
}

TEST_CASE("random streams are reproducible and independent per purpose") {
  RngStream a(7, RngPurpose::kArrivals), b(7, RngPurpose::kArrivals), c(7, RngPurpose::kLengths);
  bool all_equal_c = true;
  for (int i = 0; i < 100; ++i) {
    auto x = a.next_u64();
    CHECK(x == b.next_u64());
    all_equal_c &= x == c.next_u64();
  }
  CHECK_FALSE(all_equal_c);
}

TEST_CASE("RngStream's seeding is pinned: the same seed gives the same draws on every platform and release") {
  // The mixer is SplitMix64's finaliser: from state 0 its reference generator's first two outputs
  // are 0xe220a8397b1dcdaf and 0x6e789e6aa1b965f4 (Vigna's splitmix64.c), i.e. mix64(0) and
  // mix64(the golden gamma) — an expectation from outside this code.
  CHECK(mix64(0) == 0xe220a8397b1dcdafull);
  CHECK(mix64(0x9E3779B97F4A7C15ull) == 0x6e789e6aa1b965f4ull);
  // The streams' first draws, recorded when this test was written: a change
  // to how RngStream seeds (purpose index, sub-stream mixing) or draws shifts every scenario's
  // arrivals and lengths, so it must show up here and be a deliberate golden update.
  RngStream a(7, RngPurpose::kArrivals), lengths(7, RngPurpose::kLengths), sub(7, RngPurpose::kArrivals, 1);
  CHECK(a.next_u64() == 9372360577119704852ull);
  CHECK(a.next_u64() == 18346623827482497399ull);
  CHECK(lengths.next_u64() == 17846136766641241871ull);
  CHECK(sub.next_u64() == 7776872295444797396ull);
  // uniform01 keeps the top 53 bits: the first acceptance draw of seed 7.
  RngStream u(7, RngPurpose::kAcceptance);
  CHECK(u.uniform01() == 0.088284413905678982);
}

TEST_CASE("uniform integers stay in range and cover it evenly") {
  RngStream r(3, RngPurpose::kLengths);
  std::vector<int> counts(10, 0);
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    auto x = r.uniform_int(0, 9);
    REQUIRE(x >= 0);
    REQUIRE(x <= 9);
    ++counts[static_cast<std::size_t>(x)];
  }
  // Each bin expects 10,000 with standard deviation ~95: 5 sigma = 475.
  for (int c : counts) CHECK(std::abs(c - kDraws / 10) < 475);
}
