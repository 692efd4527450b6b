#include "sim/serving/replica.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace tycoon::serving {

Replica::Replica(const ReplicaParams& params, const perf::Deployment& deployment, const perf::CalibrationProfile& cal)
    : p_(params),
      deployment_(&deployment),
      cal_(&cal),
      kv_(params.num_blocks, params.page_tokens, params.prefix_caching) {
  if (deployment.spec_decode && deployment.spec_decode->num_draft_tokens > 0) {
    sampler_.emplace(deployment.spec_decode->num_draft_tokens, deployment.spec_decode->acceptance_length);
  }
  prefills_.reserve(64);
  decode_contexts_.reserve(static_cast<std::size_t>(p_.max_num_seqs));
  scheduled_.reserve(static_cast<std::size_t>(p_.max_num_seqs));
  running_.reserve(static_cast<std::size_t>(p_.max_num_seqs));
}

std::int64_t Replica::blocks_for_lifetime(const Request& r) const {
  return blocks_for_tokens(r.input_tokens + r.output_tokens + p_.num_draft_tokens) + p_.fixed_blocks_per_seq;
}

void Replica::enqueue(RequestId id, Request& r) {
  r.state = RequestState::kWaiting;
  ++num_waiting_;
  if (p_.recv_interval > 1) {  // the scheduler takes it in at its next receiving pass (receive())
    inbox_.push_back(id);
    return;
  }
  if (p_.async_scheduling && busy_) {  // the next step is already formed (promote_held())
    held_now_.push_back(id);
    return;
  }
  waiting_.push_back(id);
  // Its admission looks up the first prompt block's hash, usually within microseconds: start
  // loading that table slot now (no effect on the contents).
  if (kv_.prefix_caching() && r.num_tokens() - 1 >= p_.page_tokens) {
    kv_.prefetch(chain_hash(kRootHash, traffic::block_content_key(r.content, 0, p_.page_tokens)));
  }
}

namespace {

// The chain hashes of a prompt's first `num_blocks` blocks from the root, in order. A chain hash
// depends on the blocks before it, not on whether the cache holds them, so each is computed
// kAhead blocks before it is asked for and its table slot prefetched: a long prefix's lookups
// overlap their cache misses instead of waiting for one after the other. The lookups are the
// same, in the same order; at most kAhead hashes past the first miss are computed for nothing.
class PrefetchedChain {
 public:
  PrefetchedChain(const KvCache& kv, const traffic::Content& content, std::int64_t page_tokens, std::int64_t num_blocks)
      : kv_(kv), content_(content), page_tokens_(page_tokens), num_blocks_(num_blocks) {
    while (computed_ < std::min(num_blocks_, kAhead)) compute_next();
  }
  // The hash of the next block (the first call: block 0).
  std::uint64_t next() {
    const std::uint64_t h = ahead_[static_cast<std::size_t>(taken_++ % kAhead)];
    if (computed_ < num_blocks_) compute_next();
    return h;
  }

 private:
  static constexpr std::int64_t kAhead = 16;
  void compute_next() {
    last_ = chain_hash(last_, traffic::block_content_key(content_, computed_, page_tokens_));
    kv_.prefetch(last_);
    ahead_[static_cast<std::size_t>(computed_++ % kAhead)] = last_;
  }
  const KvCache& kv_;
  const traffic::Content& content_;
  std::int64_t page_tokens_, num_blocks_;
  std::array<std::uint64_t, kAhead> ahead_{};
  std::uint64_t last_ = kRootHash;
  std::int64_t computed_ = 0, taken_ = 0;
};

}  // namespace

std::int64_t Replica::cached_prefix_blocks(const Request& r) const {
  if (!kv_.prefix_caching()) return 0;
  const std::int64_t max_blocks = (r.num_tokens() - 1) / p_.page_tokens;
  PrefetchedChain chain(kv_, r.content, p_.page_tokens, max_blocks);
  std::int64_t i = 0;
  for (; i < max_blocks; ++i) {
    if (!kv_.find(chain.next())) break;
  }
  return i;
}

void Replica::release(Request& r) {
  kv_.release(r.blocks);
  r.blocks.clear();
  kv_.unreserve(p_.fixed_blocks_per_seq + r.reserved_growth_blocks);
  r.reserved_growth_blocks = 0;
}

void Replica::register_unique_blocks(Request& r) {
  const auto full = static_cast<std::int32_t>(r.num_computed / p_.page_tokens);
  for (std::int32_t i = r.num_hashed_blocks; i < full; ++i) {
    r.last_hash = chain_hash(r.last_hash, traffic::block_content_key(r.content, i, p_.page_tokens));
    kv_.register_hash(r.blocks[static_cast<std::size_t>(i)], r.last_hash);
  }
}

void Replica::preempt(RequestId id, Request& r, ServingMetrics& metrics) {
  assert(!running_.empty() && running_.back() == id);
  if (r.content.unique && kv_.prefix_caching()) register_unique_blocks(r);  // its recompute may hit them
  release(r);
  r.num_computed = 0;
  r.num_hashed_blocks = 0;
  r.last_hash = kRootHash;
  r.state = RequestState::kWaiting;
  ++r.num_preemptions;
  ++metrics.num_preemptions;
  running_.pop_back();
  waiting_.push_front(id);
  ++num_waiting_;
}

bool Replica::grow(RequestId id, std::vector<Request>& requests, std::int64_t tokens, ServingMetrics& metrics) {
  Request& r = requests[id];
  // The common case (room left in the last block) costs a multiply, not a division.
  const auto held = static_cast<std::int64_t>(r.blocks.size());
  if (r.num_computed + tokens <= held * p_.page_tokens) return true;
  const auto need = blocks_for_tokens(r.num_computed + tokens) - held;
  // Blocks reserved at admission (guaranteed-no-evict) turn into real ones.
  const auto from_reserve = static_cast<std::int32_t>(std::min<std::int64_t>(need, r.reserved_growth_blocks));
  kv_.unreserve(from_reserve);
  r.reserved_growth_blocks -= from_reserve;
  while (need > kv_.num_available()) {
    RequestId victim = running_.back();
    Request& v = requests[victim];
    if (v.scheduled_step == step_) return false;  // already in this step: cannot take its blocks
    preempt(victim, v, metrics);
    if (victim == id) return false;
  }
  kv_.allocate(static_cast<std::int32_t>(need), r.blocks);
  return true;
}

bool Replica::admit_front(std::vector<Request>& requests, std::int64_t& budget) {
  drop_timed_out_front(requests);
  if (waiting_.empty()) return false;
  const RequestId id = waiting_.front();
  Request& r = requests[id];
  assert(r.num_computed == 0 && r.blocks.empty());
  if (kv_.num_available() < p_.fixed_blocks_per_seq + 1) return false;

  // Prefix-cache lookup: full blocks of known tokens, leaving at least one token to compute.
  hit_blocks_.clear();
  std::int32_t free_hits = 0;
  std::uint64_t h = kRootHash;
  if (kv_.prefix_caching()) {
    const std::int64_t max_blocks = (r.num_tokens() - 1) / p_.page_tokens;
    PrefetchedChain chain(kv_, r.content, p_.page_tokens, max_blocks);
    for (std::int64_t i = 0; i < max_blocks; ++i) {
      const std::uint64_t next = chain.next();
      auto b = kv_.find(next);
      if (!b) break;
      h = next;
      hit_blocks_.push_back(*b);
      free_hits += kv_.is_free(*b);
    }
  }
  const auto num_hits = static_cast<std::int64_t>(hit_blocks_.size());
  const std::int64_t cached = num_hits * p_.page_tokens;
  const std::int64_t remaining = r.num_tokens() - cached;
  std::int64_t n;
  if (p_.chunked_prefill) {
    n = std::min(remaining, budget);
  } else {
    // Without chunking a prompt runs whole; one longer than the budget runs alone.
    n = (remaining <= budget || scheduled_.empty()) ? remaining : 0;
  }
  if (n <= 0) return false;
  const std::int64_t new_blocks = blocks_for_tokens(cached + n) - num_hits;
  // Guaranteed-no-evict also holds back every block the request will grow into (its prompt,
  // its whole output and the draft lookahead); in-flight requests' reservations are already
  // out of num_available().
  const std::int64_t growth =
      p_.guaranteed_no_evict
          ? std::max<std::int64_t>(
                0, blocks_for_tokens(r.input_tokens + r.output_tokens + p_.num_draft_tokens) - num_hits - new_blocks)
          : 0;
  if (new_blocks + p_.fixed_blocks_per_seq + free_hits + growth > kv_.num_available()) return false;

  for (BlockId b : hit_blocks_) kv_.acquire(b);
  r.blocks.assign(hit_blocks_.begin(), hit_blocks_.end());
  kv_.allocate(static_cast<std::int32_t>(new_blocks), r.blocks);
  kv_.reserve(p_.fixed_blocks_per_seq + static_cast<std::int32_t>(growth));
  r.reserved_growth_blocks = static_cast<std::int32_t>(growth);
  r.num_computed = cached;
  r.num_hashed_blocks = static_cast<std::int32_t>(num_hits);
  r.last_hash = h;
  if (r.num_cached_tokens < 0) r.num_cached_tokens = cached;
  r.state = RequestState::kRunning;
  r.scheduled_step = step_;
  waiting_.pop_front();
  --num_waiting_;
  running_.push_back(id);

  prefills_.push_back(perf::PrefillChunk{n, cached, cached + n == r.num_tokens()});
  scheduled_.push_back(Scheduled{id, n, false});
  budget -= n;
  return true;
}

bool Replica::hold_prompts(const std::vector<Request>& requests, std::int64_t budget) {
  // TensorRT-LLM's PyExecutor (_schedule and _waiting_requests; batch_wait_timeout_iters,
  // batch_wait_max_tokens_ratio): only a step that has both decodes and prompts to run waits.
  if (p_.batch_wait_iters <= 0 && p_.batch_wait_tokens_ratio <= 0) return false;
  if (scheduled_.empty()) return false;  // no decodes: holding would leave the GPU idle
  // The prompts the step would run, oldest first, while the token budget and the seats last:
  // those part way through a prefill, then the waiting ones. Each counts with all its tokens, as
  // TensorRT-LLM counts a context request (not the chunk it runs); the decodes count theirs.
  std::int64_t tokens = p_.max_num_batched_tokens - budget;
  std::int64_t room = budget;
  bool any = false;
  for (RequestId id : running_) {
    const Request& r = requests[id];
    if (room <= 0) break;
    if (r.scheduled_step == step_ || r.decoding()) continue;
    any = true;
    tokens += r.num_tokens();
    room -= r.num_tokens() - r.num_computed;
  }
  // A waiting prompt counts only if the step could admit it (a seat, and a block for it beyond the
  // fixed state): TensorRT-LLM's scheduler never picks one that does not fit. The same condition
  // lets a fast-forwarded decode run go by without a step that would hold (replica_fast_path.cpp).
  std::int64_t seats = p_.max_num_seqs - static_cast<std::int64_t>(running_.size());
  if (kv_.num_available() < p_.fixed_blocks_per_seq + 1) seats = 0;
  for (auto it = waiting_.begin(); it != waiting_.end() && room > 0 && seats > 0; ++it) {
    const Request& r = requests[*it];
    if (r.state != RequestState::kWaiting) continue;  // left the queue (lazy removal)
    any = true;
    tokens += r.num_tokens();
    room -= r.num_tokens();
    --seats;
  }
  if (!any) return false;
  if (batch_wait_count_ >= p_.batch_wait_iters ||
      static_cast<double>(tokens) >= p_.batch_wait_tokens_ratio * static_cast<double>(p_.max_num_batched_tokens)) {
    batch_wait_count_ = 0;
    return false;
  }
  ++batch_wait_count_;
  return true;
}

void Replica::receive(const std::vector<Request>& requests) {
  // SGLang's SchedulerRecvSkipper (--scheduler-recv-interval N): each pass of the scheduler's loop
  // adds the weight of the batch it ran last (its overlap loop: the one it has just launched,
  // start_iteration) to a counter, 1 for a decode (or verify) step and
  // 1000 for any step with a prefill, and reads the requests sent to it only when the counter
  // reaches N (then it restarts at 0). An idle loop adds 1 per pass, microseconds apart: an idle
  // scheduler takes a request in at once; one whose last step had a prefill does when N <= 1000.
  const bool idle_now = drop_timed_out_front(requests);
  constexpr int kPrefillWeight = 1000;  // SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DEFAULT: any step but a decode or verify
  recv_counter_ += (idle_ || idle_now) ? p_.recv_interval : last_step_prefill_ ? kPrefillWeight : 1;
  if (recv_counter_ < p_.recv_interval) return;
  recv_counter_ = 0;
  // Scheduling one step ahead as well (SGLang's overlap loop, on by default): this pass comes after
  // the step starting now was formed (start_iteration), so what it reads runs in the step after it,
  // unless nothing was left to form this one from (idle).
  const bool next_step = p_.async_scheduling && !(idle_ || idle_now);
  for (RequestId id : inbox_) {
    if (requests[id].state != RequestState::kWaiting) continue;  // timed out since
    if (next_step) {
      held_prev_.push_back(id);
    } else {
      waiting_.push_back(id);
    }
  }
  inbox_.clear();
}

bool Replica::drop_timed_out_front(const std::vector<Request>& requests) {
  while (!waiting_.empty() && requests[waiting_.front()].state != RequestState::kWaiting) waiting_.pop_front();
  return running_.empty() && waiting_.empty();
}

void Replica::promote_held(const std::vector<Request>& requests) {
  // vLLM's engine core with asynchronous scheduling (EngineCore.step_with_batch_queue, two batches
  // in flight): it forms step N+1 as soon as step N is launched, then waits for step N's output,
  // and only then reads the requests that arrived meanwhile, into step N+2. So the step starting
  // now was formed when the last one started: it takes the requests that arrived before that
  // (held_prev_), not those that arrived while the last one ran (held_now_, next time). When
  // nothing was left to form it from (no request running or waiting), the engine had no step in
  // flight and schedules the newcomers at once.
  auto promote = [&](std::vector<RequestId>& held) {
    for (RequestId id : held) {
      if (requests[id].state == RequestState::kWaiting) waiting_.push_back(id);  // not timed out since
    }
    held.clear();
  };
  promote(held_prev_);
  held_prev_.swap(held_now_);
  if (drop_timed_out_front(requests)) promote(held_prev_);
}

std::optional<core::Duration> Replica::start_iteration(std::vector<Request>& requests, ServingMetrics& metrics) {
  assert(!busy_);
  if (p_.async_scheduling) promote_held(requests);
  // SGLang's receive interval. Its overlap loop (async_scheduling) receives after it has formed and
  // launched a step, so that pass weighs the step now starting and what it reads runs in the next
  // one (receive() below); its plain loop receives before it forms the step, weighing the step
  // that just ended. An idle scheduler receives at once either way.
  bool receive_after = false;
  if (p_.recv_interval > 1) {
    receive_after = p_.async_scheduling && !idle_ && !drop_timed_out_front(requests);
    if (!receive_after) receive(requests);
  }
  ++step_;
  prefills_.clear();
  decode_contexts_.clear();
  scheduled_.clear();
  std::int64_t budget = p_.max_num_batched_tokens;
  const std::int64_t decode_tokens = 1 + p_.num_draft_tokens;

  // (1) Decodes, oldest first.
  for (std::size_t i = 0; i < running_.size(); ++i) {
    const RequestId id = running_[i];
    Request& r = requests[id];
    if (!r.decoding()) continue;
    if (budget < decode_tokens) break;
    if (!grow(id, requests, decode_tokens, metrics)) continue;  // preempted itself: running_ shrank
    decode_contexts_.push_back(r.num_computed);
    scheduled_.push_back(Scheduled{id, decode_tokens, true});
    r.scheduled_step = step_;
    budget -= decode_tokens;
  }
  // (2) Prompts part way through a chunked prefill, unless batch waiting holds the prompts back.
  const bool hold = hold_prompts(requests, budget);
  for (std::size_t i = 0; i < running_.size() && budget > 0 && !hold; ++i) {
    const RequestId id = running_[i];
    Request& r = requests[id];
    if (r.scheduled_step == step_ || r.decoding()) continue;
    const std::int64_t remaining = r.num_tokens() - r.num_computed;
    std::int64_t n = p_.chunked_prefill ? std::min(remaining, budget) : remaining;
    if (!p_.chunked_prefill && n > budget && !scheduled_.empty()) break;
    if (!grow(id, requests, n, metrics)) break;
    prefills_.push_back(perf::PrefillChunk{n, r.num_computed, r.num_computed + n == r.num_tokens()});
    scheduled_.push_back(Scheduled{id, n, false});
    r.scheduled_step = step_;
    budget -= n;
  }
  // (3) Admissions.
  while (!hold && budget > 0 && static_cast<std::int32_t>(running_.size()) < p_.max_num_seqs && num_waiting_ > 0) {
    if (!admit_front(requests, budget)) break;
  }
  // Admissions only happen here, so the most sequences ever running at once is seen here.
  metrics.peak_running_seqs = std::max(metrics.peak_running_seqs, static_cast<std::int64_t>(running_.size()));
  if (scheduled_.empty()) {
    if (receive_after) receive(requests);
    idle_ = true;
    return std::nullopt;
  }
  idle_ = false;
  last_step_prefill_ = !prefills_.empty();
  if (receive_after) receive(requests);  // weighs this step: a prefill's 1,000, a decode's 1

  if (p_.fast_forward_decode && prefills_.empty()) {
    // Decode only: the per-batch-size model, fed the same sums predict_iteration would make
    // (in the same order), gives the same bits without rebuilding the constant ops.
    const perf::DecodeStepModel& model = decode_model(decode_contexts_.size());
    ff_keys_.assign(model.num_groups(), 0.0);
    ff_index_.assign(model.num_groups(), 0.0);
    double longest = 0;
    for (auto c : decode_contexts_) longest = std::max(longest, static_cast<double>(c) + model.q_per_seq());
    for (std::size_t g = 0; g < model.num_groups(); ++g) {
      const data::Mixer& m = model.mixer(g);
      const bool indexer = m.sparse_top_k_tokens > 0 && m.indexer_num_heads > 0;
      double keys = 0, index = 0;
      for (auto c : decode_contexts_) {
        keys += model.keys_of(g, c);
        if (indexer) index += static_cast<double>(c) + model.q_per_seq();
      }
      ff_keys_[g] = keys;
      ff_index_[g] = index;
    }
    model.step_times(ff_keys_, ff_index_, longest, ff_times_);
    metrics.on_iteration(ff_times_, scheduled_.size(),
                         static_cast<double>(kv_.num_used()) / static_cast<double>(kv_.num_blocks()));
    busy_ = true;
    return std::max(core::from_seconds(ff_times_.total_s), core::Duration{1});
  }
  auto cost = perf::predict_iteration(perf::BatchShape{prefills_, decode_contexts_}, *deployment_, *cal_);
  metrics.on_iteration(cost, scheduled_.size(),
                       static_cast<double>(kv_.num_used()) / static_cast<double>(kv_.num_blocks()));
  busy_ = true;
  return std::max(core::from_seconds(cost.total_s), core::Duration{1});
}

void Replica::hash_full_blocks(Request& r) {
  if (!kv_.prefix_caching() || r.content.unique) return;
  if (r.num_computed < static_cast<std::int64_t>(r.num_hashed_blocks + 1) * p_.page_tokens) return;  // none filled
  const auto full = static_cast<std::int32_t>(r.num_computed / p_.page_tokens);
  for (std::int32_t i = r.num_hashed_blocks; i < full; ++i) {
    r.last_hash = chain_hash(r.last_hash, traffic::block_content_key(r.content, i, p_.page_tokens));
    kv_.prefetch(r.last_hash);
    pending_hashes_.emplace_back(r.blocks[static_cast<std::size_t>(i)], r.last_hash);
  }
  if (full > r.num_hashed_blocks) r.num_hashed_blocks = full;
}

void Replica::finish_iteration(core::Time now, std::vector<Request>& requests, core::RngStream& acceptance,
                               ServingMetrics& metrics, std::vector<RequestId>& finished) {
  assert(busy_);
  busy_ = false;
  bool any_finished = false;
  pending_hashes_.clear();
  for (const Scheduled& s : scheduled_) {
    Request& r = requests[s.id];
    assert(r.state == RequestState::kRunning);
    if (s.decode) {
      std::int64_t emitted = sampler_ ? sampler_->draw(acceptance) : 1;
      emitted = std::min(emitted, r.output_tokens - r.num_output);
      r.num_computed += emitted;
      metrics.on_tokens(r, emitted, now);
    } else {
      r.num_computed += s.num_new_tokens;
      if (r.num_computed == r.num_tokens()) metrics.on_tokens(r, 1, now);  // the last chunk samples a token
    }
    hash_full_blocks(r);
  }
  // Register after every sequence has hashed (in step order, so the first of two equal
  // prefixes wins as it would one by one), then release the finished ones.
  for (const auto& [block, hash] : pending_hashes_) kv_.register_hash(block, hash);
  for (const Scheduled& s : scheduled_) {
    Request& r = requests[s.id];
    if (r.num_output >= r.output_tokens) {
      release(r);
      r.state = RequestState::kCompleted;
      r.finished_at = now;
      finished.push_back(s.id);
      any_finished = true;
    }
  }
  if (any_finished) {
    std::erase_if(running_, [&](RequestId id) { return requests[id].state != RequestState::kRunning; });
  }
}

bool Replica::reserve_transferred(Request& r) {
  assert(r.blocks.empty() && r.num_computed == 0);
  const std::int64_t blocks = blocks_for_tokens(r.input_tokens);
  const std::int64_t growth =
      p_.guaranteed_no_evict
          ? std::max<std::int64_t>(0,
                                   blocks_for_tokens(r.input_tokens + r.output_tokens + p_.num_draft_tokens) - blocks)
          : 0;
  if (blocks + growth + p_.fixed_blocks_per_seq > kv_.num_available()) return false;
  kv_.allocate(static_cast<std::int32_t>(blocks), r.blocks);
  kv_.reserve(p_.fixed_blocks_per_seq + static_cast<std::int32_t>(growth));
  r.reserved_growth_blocks = static_cast<std::int32_t>(growth);
  return true;
}

void Replica::admit_transferred(RequestId id, Request& r) {
  assert(!busy_ && static_cast<std::int64_t>(r.blocks.size()) == blocks_for_tokens(r.input_tokens));
  r.num_computed = r.input_tokens - 1;
  r.num_hashed_blocks = 0;
  r.last_hash = kRootHash;
  r.state = RequestState::kRunning;
  r.scheduled_step = 0;
  running_.push_back(id);
}

}  // namespace tycoon::serving
