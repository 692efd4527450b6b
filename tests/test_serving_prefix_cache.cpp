// The paged KV cache and its block-hash prefix cache: exact hit counts, LRU eviction, and a
// model check of the block pool against a naive reference.
#include "tests/test_serving_support.h"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "sim/serving/kv_cache.h"

using namespace tycoon;
using namespace tycoon::serving_test;
using serving::BlockId;
using serving::KvCache;

TEST_CASE("an identical prompt sent again hits every full block but the last token's") {
  // Two 1,000-token prompts of one session, 100 s apart (the first long finished). vLLM keeps
  // at least one prompt token to compute, so the hit is floor((1000 - 1) / 16) = 62 blocks =
  // 992 tokens, and the hit rate over both prompts is 992 / 2000.
  auto path = write_trace("prefix_same",
                          {R"({"arrival_s": 0, "input_tokens": 1000, "output_tokens": 10, "session_id": "s"})",
                           R"({"arrival_s": 100, "input_tokens": 1000, "output_tokens": 10, "session_id": "s"})"});
  auto cfg = with_trace(gpt_oss_h200(), path);
  auto s = serving::simulate(cfg, h200_calibration());
  CHECK(s.requests_completed == 2);
  CHECK(s.cached_input_tokens == 992);
  CHECK(s.prefix_cache_hit_rate == doctest::Approx(992.0 / 2000.0));
  // The second prompt prefilled only 8 tokens after 992 cached ones.
  const auto& cal = h200_calibration();
  const double short_prefill = step_s(perf::predict_prefill(cfg.deployment, cal, 8, 992));
  CHECK(s.ttft_s.p50 ==
        doctest::Approx(0.5 * (short_prefill + step_s(perf::predict_prefill(cfg.deployment, cal, 1000)))));

  SUBCASE("no reuse with prefix caching off") {
    cfg.scheduler.prefix_caching = false;
    auto off = serving::simulate(cfg, cal);
    CHECK(off.cached_input_tokens == 0);
    CHECK(off.prefix_cache_hit_rate == 0);
  }
}

TEST_CASE("the next turn of a conversation hits the blocks the previous turn filled") {
  // Turn 1: 1,000 prompt + 50 output tokens; the KV cache then holds 1,049 computed tokens
  // (the last sampled token is never fed back), i.e. 65 full blocks = 1,040 tokens. Turn 2
  // resends them plus 151 new tokens (1,200 in all): 1,040 cached.
  auto path =
      write_trace("prefix_turns", {R"({"arrival_s": 0, "input_tokens": 1000, "output_tokens": 50, "session_id": "c"})",
                                   R"({"arrival_s": 60, "input_tokens": 1200, "output_tokens": 50, "session_id": "c"})",
                                   R"({"arrival_s": 120, "input_tokens": 1200, "output_tokens": 50})"});
  auto s = serving::simulate(with_trace(gpt_oss_h200(), path), h200_calibration());
  CHECK(s.cached_input_tokens == 1040);
  CHECK(s.prefix_cache_hit_rate == doctest::Approx(1040.0 / 3400.0));
}

TEST_CASE("a shared system prompt hits across sessions") {
  // Both prompts begin with the same 512-token prefix (32 blocks); their tails differ.
  auto path = write_trace(
      "prefix_system",
      {R"({"arrival_s": 0, "input_tokens": 900, "output_tokens": 5, "prefix_id": "sys", "prefix_tokens": 512})",
       R"({"arrival_s": 30, "input_tokens": 700, "output_tokens": 5, "prefix_id": "sys", "prefix_tokens": 512})"});
  auto s = serving::simulate(with_trace(gpt_oss_h200(), path), h200_calibration());
  CHECK(s.cached_input_tokens == 512);
}

TEST_CASE("freed cached blocks are evicted least recently freed first") {
  KvCache kv(4, 16, true);
  std::vector<BlockId> a, b;
  kv.allocate(2, a);
  kv.register_hash(a[0], 101);
  kv.register_hash(a[1], 102);
  kv.release(a);      // a's tail (102) joins the free queue before its head (101)
  kv.allocate(2, b);  // takes the two never-used blocks first
  CHECK(kv.find(101).has_value());
  CHECK(kv.find(102).has_value());
  std::vector<BlockId> c;
  kv.allocate(1, c);  // now the oldest freed: 102 (the tail) is evicted before 101
  CHECK_FALSE(kv.find(102).has_value());
  CHECK(kv.find(101).has_value());
  CHECK(kv.num_available() == 1);
  // A hit on a free cached block takes it out of the free queue.
  kv.acquire(*kv.find(101));
  CHECK(kv.num_available() == 0);
  CHECK(kv.check_invariants());
}

TEST_CASE("reservations for fixed per-sequence state leave cached contents until needed") {
  KvCache kv(8, 16, true);
  std::vector<BlockId> a;
  kv.allocate(3, a);
  for (int i = 0; i < 3; ++i) kv.register_hash(a[static_cast<std::size_t>(i)], 200 + static_cast<std::uint64_t>(i));
  kv.release(a);
  kv.reserve(6);
  CHECK(kv.num_available() == 2);
  CHECK(kv.num_cached() == 3);
  CHECK(kv.num_used() == 6);
  kv.unreserve(6);
  CHECK(kv.num_used() == 0);
  CHECK(kv.check_invariants());
}

TEST_CASE("the block pool matches a naive model under random operations") {
  // Random allocate / register / release / acquire over a small pool with a small key space
  // (many duplicate hashes), checked against maps after every operation.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::RngStream rng(seed, core::RngPurpose::kFailures);
    KvCache kv(64, 16, true);
    std::vector<std::vector<BlockId>> tables;
    std::map<std::uint64_t, BlockId> cached;  // hash -> block, as the cache should hold it
    for (int step = 0; step < 3000; ++step) {
      const auto op = rng.uniform_int(0, 3);
      if (op == 0 && kv.num_available() > 0) {
        auto n = static_cast<std::int32_t>(rng.uniform_int(1, std::min<std::int64_t>(8, kv.num_available())));
        std::vector<BlockId> t;
        kv.allocate(n, t);
        for (BlockId b : t) std::erase_if(cached, [&](const auto& kvp) { return kvp.second == b; });  // evicted
        tables.push_back(std::move(t));
      } else if (op == 1 && !tables.empty()) {
        auto& t = tables[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(tables.size()) - 1))];
        BlockId b = t[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(t.size()) - 1))];
        std::uint64_t h = static_cast<std::uint64_t>(rng.uniform_int(1, 40));
        bool block_has_hash =
            std::any_of(cached.begin(), cached.end(), [&](const auto& kvp) { return kvp.second == b; });
        if (!block_has_hash && !cached.count(h)) cached[h] = b;
        kv.register_hash(b, h);
      } else if (op == 2 && !tables.empty()) {
        auto i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(tables.size()) - 1));
        kv.release(tables[i]);
        tables.erase(tables.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op == 3 && !cached.empty()) {
        auto it = cached.begin();
        std::advance(it, rng.uniform_int(0, static_cast<std::int64_t>(cached.size()) - 1));
        kv.acquire(it->second);
        tables.push_back({it->second});
      }
      REQUIRE(kv.check_invariants());
      std::int64_t refs = 0;
      for (const auto& t : tables) refs += static_cast<std::int64_t>(t.size());
      REQUIRE(kv.total_references() == refs);
      REQUIRE(kv.num_cached() == static_cast<std::int32_t>(cached.size()));
      for (const auto& [h, b] : cached) REQUIRE(kv.find(h) == std::optional<BlockId>(b));
    }
    for (const auto& t : tables) kv.release(t);
    CHECK(kv.num_used() == 0);
  }
}

TEST_CASE("evictions follow a FIFO of every free block, anonymous blocks included") {
  // KvCache keeps blocks without a prefix on a stack and counts them between the free blocks that
  // hold one. Reference: vLLM's free queue, one FIFO of every free block (never-used ones first),
  // each entry anonymous or holding a hash. After every operation the cached hashes, the block
  // each allocation evicts (the same block id when it held a prefix) and the free count must
  // match the reference exactly: no tolerance, the order is discrete. Small pools make the ring
  // fill with stale entries (acquires of free cached blocks) and compact.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::RngStream rng(seed, core::RngPurpose::kFailures);
    const std::int32_t num_blocks = seed % 2 == 0 ? 16 : 48;
    KvCache kv(num_blocks, 16, true);
    std::deque<std::uint64_t> queue(static_cast<std::size_t>(num_blocks), 0);  // hash per free entry, 0: anonymous
    std::map<BlockId, std::uint64_t> held_hash;  // referenced or free block -> its hash (0: none)
    std::map<BlockId, int> refs;
    std::vector<std::vector<BlockId>> tables;
    std::map<std::uint64_t, BlockId> cached;
    std::int64_t evictions = 0;
    for (int step = 0; step < 4000; ++step) {
      const auto op = rng.uniform_int(0, 3);
      if (op == 0 && kv.num_available() > 0) {
        auto n = static_cast<std::int32_t>(rng.uniform_int(1, std::min<std::int64_t>(6, kv.num_available())));
        std::vector<BlockId> t;
        kv.allocate(n, t);
        REQUIRE(t.size() == static_cast<std::size_t>(n));
        for (BlockId b : t) {
          REQUIRE_FALSE(queue.empty());
          const std::uint64_t h = queue.front();
          queue.pop_front();
          REQUIRE(refs[b] == 0);
          if (h != 0) {  // the reference evicts this prefix: the cache must hand out its block
            REQUIRE(cached.count(h) == 1);
            REQUIRE(cached[h] == b);
            cached.erase(h);
            ++evictions;
          } else {
            REQUIRE(held_hash[b] == 0);  // an anonymous block
          }
          held_hash[b] = 0;
          refs[b] = 1;
        }
        tables.push_back(std::move(t));
      } else if (op == 1 && !tables.empty()) {
        auto& t = tables[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(tables.size()) - 1))];
        BlockId b = t[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(t.size()) - 1))];
        auto h = static_cast<std::uint64_t>(rng.uniform_int(1, 60));
        if (held_hash[b] == 0 && !cached.count(h)) {
          cached[h] = b;
          held_hash[b] = h;
        }
        kv.register_hash(b, h);
      } else if (op == 2 && !tables.empty()) {
        auto i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(tables.size()) - 1));
        kv.release(tables[i]);
        for (auto it = tables[i].rbegin(); it != tables[i].rend(); ++it) {
          if (--refs[*it] == 0) queue.push_back(held_hash[*it]);
        }
        tables.erase(tables.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op == 3 && !cached.empty()) {
        auto it = cached.begin();
        std::advance(it, rng.uniform_int(0, static_cast<std::int64_t>(cached.size()) - 1));
        const BlockId b = it->second;
        if (refs[b] == 0) queue.erase(std::find(queue.begin(), queue.end(), it->first));
        ++refs[b];
        kv.acquire(b);
        tables.push_back({b});
      }
      REQUIRE(kv.check_invariants());
      REQUIRE(kv.num_free() == static_cast<std::int32_t>(queue.size()));
      REQUIRE(kv.num_cached() == static_cast<std::int32_t>(cached.size()));
      for (std::uint64_t h = 1; h <= 60; ++h) {
        const auto found = kv.find(h);
        REQUIRE(found.has_value() == (cached.count(h) == 1));
        if (found) REQUIRE(*found == cached[h]);
      }
    }
    CHECK(evictions > 0);  // the check saw prefixes evicted, not only anonymous blocks reused
  }
}

TEST_CASE("acquiring a block without a cached prefix is refused") {
  // Only find() hands out blocks to share. An anonymous block's reference count is implicit (one
  // in a table, none when free) and a free one has no recorded place in the free queue, so
  // acquiring one is a caller's error, reported rather than corrupting the cache.
  KvCache kv(4, 16, true);
  std::vector<BlockId> a;
  kv.allocate(1, a);
  kv.release(a);
  CHECK_THROWS_AS(kv.acquire(a[0]), std::logic_error);
  std::vector<BlockId> b;
  kv.allocate(1, b);
  CHECK_THROWS_AS(kv.acquire(b[0]), std::logic_error);  // in use, still anonymous
  CHECK(kv.check_invariants());
}

TEST_CASE("compacting the ring keeps the anonymous blocks queued before a cached one") {
  // Three blocks: B (anonymous) and the never-used block are queued before A, which holds a
  // prefix. Ten prefix hits on A, each released again, leave stale entries that overflow the
  // ring (2 x 3 blocks -> 8 entries), so it compacts, carrying the two anonymous blocks counted by
  // A's first entry onto its live one. FIFO order: the next two allocations take the anonymous
  // blocks and keep A's prefix; the third evicts it and gets A itself.
  KvCache kv(3, 16, true);
  std::vector<BlockId> ab;
  kv.allocate(2, ab);
  const BlockId a = ab[0];
  kv.register_hash(a, 777);
  kv.release(ab);  // B first (anonymous), then A (the tail end of the queue)
  for (int i = 0; i < 10; ++i) {
    kv.acquire(a);
    REQUIRE(kv.num_free() == 2);
    std::vector<BlockId> one{a};
    kv.release(one);
    REQUIRE(kv.check_invariants());
  }
  std::vector<BlockId> t;
  kv.allocate(2, t);
  CHECK(kv.find(777) == std::optional<BlockId>(a));
  CHECK(std::find(t.begin(), t.end(), a) == t.end());
  std::vector<BlockId> u;
  kv.allocate(1, u);
  CHECK_FALSE(kv.find(777).has_value());
  CHECK(u == std::vector<BlockId>{a});
  CHECK(kv.check_invariants());
}

TEST_CASE("a hash table grown into a released one's memory holds what a fresh one would") {
  // The table starts at 1,024 slots and grows to keep its load at or below 1/2. Each thread keeps
  // the tables its caches release as spares; a growing table takes the largest spare it can use,
  // at most 16 times the doubling. On a thread of its own (no spares yet, and the spares freed
  // when it ends):
  struct Seen {
    std::size_t first_start = 0, first_end = 0, next_slots = 0, small_slots = 0, bounded_slots = 0;
    bool stale_found = false, own_found = true, invariants = true;
  } seen;
  std::thread([&seen] {
    auto hash_all = [](KvCache& kv, std::int32_t n, std::uint64_t first_hash) {
      std::vector<BlockId> t;
      kv.allocate(n, t);
      for (std::size_t i = 0; i < t.size(); ++i) kv.register_hash(t[i], first_hash + i);
      return t;
    };
    {
      // 4,096 blocks, all hashed: doubles from 1,024 to 8,192 slots, each size released on the way.
      KvCache first(4096, 16, true);
      seen.first_start = first.table_slots();
      hash_all(first, 4096, 1);
      seen.first_end = first.table_slots();
    }
    // The next cache of 4,096 blocks grows once it holds 512 hashes: into the 8,192-slot spare
    // (not 2,048), zeroed, so it finds its own 600 prefixes and none of the first cache's.
    KvCache next(4096, 16, true);
    const auto t = hash_all(next, 600, 100001);
    seen.next_slots = next.table_slots();
    for (std::uint64_t h = 1; h <= 4096; ++h) seen.stale_found = seen.stale_found || next.find(h).has_value();
    for (std::size_t i = 0; i < t.size(); ++i) {
      seen.own_found = seen.own_found && next.find(100001 + i) == std::optional<BlockId>(t[i]);
    }
    seen.invariants = next.check_invariants();
    // 1,000 blocks never need more than 2,048 slots (twice the blocks, rounded up): a larger spare
    // is left alone.
    KvCache small(1000, 16, true);
    hash_all(small, 600, 1);
    seen.small_slots = small.table_slots();
    seen.invariants = seen.invariants && small.check_invariants();
    {
      KvCache big(32768, 16, true);  // doubles to 65,536 slots
      hash_all(big, 32768, 1);
    }
    // A cache that could use 65,536 slots grows at 512 hashes to at most 16 x 2,048 = 32,768.
    KvCache bounded(32768, 16, true);
    hash_all(bounded, 600, 1);
    seen.bounded_slots = bounded.table_slots();
    seen.invariants = seen.invariants && bounded.check_invariants();
  }).join();
  CHECK(seen.first_start == 1024);
  CHECK(seen.first_end == 8192);
  CHECK(seen.next_slots == 8192);
  CHECK_FALSE(seen.stale_found);
  CHECK(seen.own_found);
  CHECK(seen.small_slots == 2048);
  CHECK(seen.bounded_slots == 32768);
  CHECK(seen.invariants);
}
