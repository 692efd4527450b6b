#include "sim/serving/replica.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace tycoon::serving {

Replica::Replica(const ReplicaParams& params, const perf::Deployment& deployment, const perf::CalibrationProfile& cal)
    : p_(params), deployment_(&deployment), cal_(&cal), kv_(params.num_blocks, params.page_tokens, params.prefix_caching) {
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
  waiting_.push_back(id);
  ++num_waiting_;
  // Its admission looks up the first prompt block's hash, usually within microseconds: start
  // loading that table slot now (no effect on the contents).
  if (kv_.prefix_caching() && r.num_tokens() - 1 >= p_.page_tokens) {
    kv_.prefetch(chain_hash(kRootHash, traffic::block_content_key(r.content, 0, p_.page_tokens)));
  }
}

std::int64_t Replica::cached_prefix_blocks(const Request& r) const {
  if (!kv_.prefix_caching()) return 0;
  const std::int64_t max_blocks = (r.num_tokens() - 1) / p_.page_tokens;
  std::uint64_t h = kRootHash;
  std::int64_t i = 0;
  for (; i < max_blocks; ++i) {
    h = chain_hash(h, traffic::block_content_key(r.content, i, p_.page_tokens));
    if (!kv_.find(h)) break;
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
  while (!waiting_.empty() && requests[waiting_.front()].state != RequestState::kWaiting) waiting_.pop_front();
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
    for (std::int64_t i = 0; i < max_blocks; ++i) {
      std::uint64_t next = chain_hash(h, traffic::block_content_key(r.content, i, p_.page_tokens));
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
          ? std::max<std::int64_t>(0, blocks_for_tokens(r.input_tokens + r.output_tokens + p_.num_draft_tokens) -
                                          num_hits - new_blocks)
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

std::optional<core::Duration> Replica::start_iteration(std::vector<Request>& requests, ServingMetrics& metrics) {
  assert(!busy_);
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
  // (2) Prompts part way through a chunked prefill.
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
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
  while (budget > 0 && static_cast<std::int32_t>(running_.size()) < p_.max_num_seqs && num_waiting_ > 0) {
    if (!admit_front(requests, budget)) break;
  }
  if (scheduled_.empty()) return std::nullopt;

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

}  // namespace tycoon::serving

namespace tycoon::serving {

const perf::DecodeStepModel& Replica::decode_model(std::size_t num_decode) {
  if (decode_models_.size() <= num_decode) decode_models_.resize(num_decode + 1);
  auto& m = decode_models_[num_decode];
  if (!m) m.emplace(*deployment_, *cal_, static_cast<std::int64_t>(num_decode));
  return *m;
}

core::Time Replica::fast_forward(core::Time step_end_at, core::Time horizon_at, std::vector<Request>& requests,
                                 core::RngStream& acceptance, ServingMetrics& metrics) {
  assert(busy_);
  if (!p_.fast_forward_decode || step_end_at >= horizon_at) return step_end_at;
  if (sampler_) return fast_forward_spec(step_end_at, horizon_at, requests, acceptance, metrics);
  if (!run_begin(step_end_at, core::Time{}, requests)) return step_end_at;
  while (ff_end_ < horizon_at && run_ready()) run_step(requests, metrics);
  run_finish(requests);
  return ff_end_;
}

bool Replica::run_begin(core::Time step_end_at, core::Time step_start_at, const std::vector<Request>& requests) {
  assert(busy_ && !sampler_);
  if (!p_.fast_forward_decode) return false;
  // The step in flight decodes every running request and nothing else.
  if (!prefills_.empty() || scheduled_.empty() || scheduled_.size() != running_.size()) return false;
  // No waiting request can start while the run lasts: none waits, no seat is free, or no block
  // is (admission needs fixed_blocks_per_seq + 1 available; decode-only steps never free one).
  if (num_waiting_ > 0 && static_cast<std::int32_t>(running_.size()) < p_.max_num_seqs &&
      kv_.num_available() >= p_.fixed_blocks_per_seq + 1) {
    return false;
  }
  const std::size_t n = scheduled_.size();
  const perf::DecodeStepModel& model = decode_model(n);
  const std::int64_t page = p_.page_tokens;

  // Attended keys must be closed-form in the step: the context itself (+1 per step and
  // sequence), or a sliding window every sequence already fills (constant).
  const std::size_t num_groups = model.num_groups();
  ff_keys_.assign(num_groups, 0.0);
  ff_index_.assign(num_groups, 0.0);
  std::int64_t min_context = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_context = 0, sum_context = 0, min_remaining = std::numeric_limits<std::int64_t>::max();
  std::int64_t num_counted = 0;
  const bool hashing = kv_.prefix_caching();
  ff_base_computed_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Scheduled& s = scheduled_[i];
    const Request& r = requests[s.id];
    if (!s.decode || s.id != running_[i]) return false;
    const std::int64_t c = r.num_computed;
    const auto held = static_cast<std::int64_t>(r.blocks.size());
    // Regular block tables: the last block holds between 1 and page_tokens free slots before
    // the step, and every full block is hashed (what finish_iteration leaves).
    if (held * page < c + 1 || held * page - c > page) return false;
    if (hashing && !r.content.unique && r.num_hashed_blocks != c / page) return false;
    ff_base_computed_[i] = c;
    min_context = std::min(min_context, c);
    max_context = std::max(max_context, c);
    sum_context += c;
    min_remaining = std::min(min_remaining, r.output_tokens - r.num_output);
    num_counted += r.counted ? 1 : 0;
  }
  for (std::size_t g = 0; g < num_groups; ++g) {
    const data::Mixer& m = model.mixer(g);
    const bool plain_keys = m.chunk_tokens <= 0 && m.sparse_top_k_tokens <= 0 &&
                            (m.kind != data::MixerKind::kAttention || m.kv_compression_ratio == 1.0);
    if (!plain_keys) return false;
    if (m.sliding_window_tokens > 0 && min_context + 1 < m.sliding_window_tokens) return false;
  }
  // Exact integers in doubles (the model sums them in any order to the same value).
  if (sum_context + static_cast<std::int64_t>(n) * (min_remaining + 2) > (std::int64_t{1} << 52)) return false;

  // Sequence i's last block fills at the end of steps s = held*page - c (mod page): bucket by it.
  ff_bucket_start_.assign(static_cast<std::size_t>(page) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto held = static_cast<std::int64_t>(requests[scheduled_[i].id].blocks.size());
    ++ff_bucket_start_[static_cast<std::size_t>((held * page - ff_base_computed_[i]) % page) + 1];
  }
  for (std::size_t b = 0; b < static_cast<std::size_t>(page); ++b) ff_bucket_start_[b + 1] += ff_bucket_start_[b];
  ff_bucket_items_.resize(n);
  scratch_fill_.assign(ff_bucket_start_.begin(), ff_bucket_start_.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto held = static_cast<std::int64_t>(requests[scheduled_[i].id].blocks.size());
    const auto b = static_cast<std::size_t>((held * page - ff_base_computed_[i]) % page);
    ff_bucket_items_[static_cast<std::size_t>(scratch_fill_[b]++)] = static_cast<std::int32_t>(i);  // in step order
  }

  ff_model_ = &model;
  ff_step_ = 1;
  ff_bucket_ = 1 % static_cast<std::size_t>(page);
  ff_end_ = step_end_at;
  ff_start_ = step_start_at;
  ff_sum_context_ = sum_context;
  ff_max_context_ = max_context;
  ff_min_remaining_ = min_remaining;
  ff_num_counted_ = num_counted;
  return true;
}

bool Replica::run_ready() const {
  if (ff_step_ >= ff_min_remaining_) return false;  // the step in flight completes a request
  const std::int32_t grows = ff_bucket_start_[ff_bucket_ + 1] - ff_bucket_start_[ff_bucket_];
  return grows <= kv_.num_available();  // else the next step may preempt
}

void Replica::run_step(std::vector<Request>& requests, ServingMetrics& metrics) {
  const std::int64_t s = ff_step_;
  const auto num = static_cast<std::int64_t>(scheduled_.size());
  const std::int64_t page = p_.page_tokens;
  const core::Time end = ff_end_;
  // Step s ends: one token per sequence, gaps into the ITL histogram.
  if (s == 1) {
    for (const Scheduled& sc : scheduled_) {
      const Request& r = requests[sc.id];
      if (r.counted) metrics.record_itl((end - r.last_token_at).count());
    }
  } else {
    metrics.record_itl((end - ff_start_).count(), ff_num_counted_);
  }
  if (end >= metrics.warmup_end) metrics.window_output_tokens += num;
  // Sequences whose last block just filled: hash it (registered in step order), then give each
  // a new block for the next step, in running order (= step order).
  const std::int32_t first = ff_bucket_start_[ff_bucket_], last = ff_bucket_start_[ff_bucket_ + 1];
  if (first < last) {
    pending_hashes_.clear();
    for (std::int32_t k = first; k < last; ++k) {
      const auto i = static_cast<std::size_t>(ff_bucket_items_[static_cast<std::size_t>(k)]);
      Request& r = requests[scheduled_[i].id];
      r.num_computed = ff_base_computed_[i] + s;
      hash_full_blocks(r);
    }
    for (const auto& [block, hash] : pending_hashes_) kv_.register_hash(block, hash);
  }
  ++step_;
  // grow() for one token into a full last block: one new block, from the request's reservation
  // first; never short (run_ready), so nothing is preempted.
  for (std::int32_t k = first; k < last; ++k) {
    const auto i = static_cast<std::size_t>(ff_bucket_items_[static_cast<std::size_t>(k)]);
    Request& r = requests[scheduled_[i].id];
    assert(r.num_computed == static_cast<std::int64_t>(r.blocks.size()) * page);
    if (r.reserved_growth_blocks > 0) {
      kv_.unreserve(1);
      --r.reserved_growth_blocks;
    }
    kv_.allocate(1, r.blocks);
  }

  // Step s + 1 starts: contexts are one longer each.
  const perf::DecodeStepModel& model = *ff_model_;
  for (std::size_t g = 0; g < model.num_groups(); ++g) {
    const data::Mixer& m = model.mixer(g);
    ff_keys_[g] = m.sliding_window_tokens > 0 ? static_cast<double>(num * m.sliding_window_tokens)
                                               : static_cast<double>(ff_sum_context_ + num * s + num);
  }
  model.step_times(ff_keys_, ff_index_, static_cast<double>(ff_max_context_ + s) + model.q_per_seq(), ff_times_);
  metrics.on_iteration(ff_times_, scheduled_.size(),
                       static_cast<double>(kv_.num_used()) / static_cast<double>(kv_.num_blocks()));
  ff_start_ = end;
  ff_end_ = end + std::max(core::from_seconds(ff_times_.total_s), core::Duration{1});
  ++ff_step_;
  ff_bucket_ = ff_bucket_ + 1 == static_cast<std::size_t>(page) ? 0 : ff_bucket_ + 1;
}

void Replica::run_finish(std::vector<Request>& requests) {
  const std::int64_t done = ff_step_ - 1;  // steps applied
  if (done == 0) return;
  // Steps 1 .. done are over: every sequence is `done` tokens further.
  for (std::size_t i = 0; i < scheduled_.size(); ++i) {
    Request& r = requests[scheduled_[i].id];
    r.num_computed = ff_base_computed_[i] + done;
    r.num_output += done;
    r.last_token_at = ff_start_;
    r.scheduled_step = step_;
  }
}

core::Time Replica::fast_forward_spec(core::Time step_end_at, core::Time horizon_at, std::vector<Request>& requests,
                                      core::RngStream& acceptance, ServingMetrics& metrics) {
  // The same entry conditions as the plain run (see fast_forward).
  if (!prefills_.empty() || scheduled_.empty() || scheduled_.size() != running_.size()) return step_end_at;
  if (num_waiting_ > 0 && static_cast<std::int32_t>(running_.size()) < p_.max_num_seqs &&
      kv_.num_available() >= p_.fixed_blocks_per_seq + 1) {
    return step_end_at;
  }
  const std::size_t n = scheduled_.size();
  const perf::DecodeStepModel& model = decode_model(n);
  const std::int64_t page = p_.page_tokens;
  const std::int64_t q = 1 + p_.num_draft_tokens;  // tokens verified per sequence and step
  const std::size_t num_groups = model.num_groups();
  ff_keys_.assign(num_groups, 0.0);
  ff_index_.assign(num_groups, 0.0);
  const bool hashing = kv_.prefix_caching();
  std::int64_t min_context = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_context = 0, sum_context = 0, min_remaining = std::numeric_limits<std::int64_t>::max();
  std::int64_t num_counted = 0, max_need = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Scheduled& s = scheduled_[i];
    const Request& r = requests[s.id];
    if (!s.decode || s.id != running_[i]) return step_end_at;
    const std::int64_t c = r.num_computed;
    if (hashing && !r.content.unique && r.num_hashed_blocks != c / page) return step_end_at;
    const auto held = static_cast<std::int64_t>(r.blocks.size());
    if (held * page < c + q) return step_end_at;  // grow() made room for this step
    min_context = std::min(min_context, c);
    max_context = std::max(max_context, c);
    sum_context += c;
    min_remaining = std::min(min_remaining, r.output_tokens - r.num_output);
    num_counted += r.counted ? 1 : 0;
    if (held * page < c + 2 * q) max_need += blocks_for_tokens(c + 2 * q) - held;
  }
  for (std::size_t g = 0; g < num_groups; ++g) {
    const data::Mixer& m = model.mixer(g);
    const bool plain_keys = m.chunk_tokens <= 0 && m.sparse_top_k_tokens <= 0 &&
                            (m.kind != data::MixerKind::kAttention || m.kv_compression_ratio == 1.0);
    if (!plain_keys) return step_end_at;
    if (m.sliding_window_tokens > 0 && min_context + q < m.sliding_window_tokens) return step_end_at;
  }
  const auto num = static_cast<std::int64_t>(n);
  // Exact integers in doubles: contexts grow by at most q per step and never past the requests' ends.
  if (sum_context + num * (q + 1) * (min_remaining + 2) > (std::int64_t{1} << 52)) return step_end_at;

  const double kv_blocks = static_cast<double>(kv_.num_blocks());
  core::Time end = step_end_at, prev_end{};
  std::int64_t s = 1;  // the step in flight, ending at `end`
  for (;; ++s) {
    // Apply step s's end only when nothing else happens then, no sequence completes in it,
    // and the next step's growth, however many drafts are accepted, needs no preemption.
    if (end >= horizon_at || max_need > kv_.num_available()) break;

    // Step s ends: each sequence draws its accepted tokens (step order, as finish_iteration).
    ff_draws_.resize(n);
    const bool may_complete = min_remaining <= q;
    if (may_complete) ff_rng_backup_ = acceptance;
    bool completes = false;
    for (std::size_t i = 0; i < n; ++i) {
      ff_draws_[i] = sampler_->draw(acceptance);
      if (may_complete) {
        const Request& r = requests[scheduled_[i].id];
        completes = completes || ff_draws_[i] >= r.output_tokens - r.num_output;
      }
    }
    if (completes) {
      acceptance = *ff_rng_backup_;  // the step-by-step path draws these again
      break;
    }
    pending_hashes_.clear();
    std::int64_t emitted_total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      Request& r = requests[scheduled_[i].id];
      const std::int64_t emitted = ff_draws_[i];  // < remaining: no min() needed
      r.num_computed += emitted;
      emitted_total += emitted;
      if (s == 1 && r.counted) metrics.record_itl((end - r.last_token_at).count());
      r.num_output += emitted;
      hash_full_blocks(r);
    }
    if (s > 1) metrics.record_itl((end - prev_end).count(), num_counted);
    if (end >= metrics.warmup_end) metrics.window_output_tokens += emitted_total;
    for (const auto& [block, hash] : pending_hashes_) kv_.register_hash(block, hash);
    sum_context += emitted_total;

    // Step s + 1 starts: grow() each sequence for q more tokens, in running order.
    ++step_;
    min_remaining = std::numeric_limits<std::int64_t>::max();
    max_context = 0;
    max_need = 0;
    for (const Scheduled& sc : scheduled_) {
      Request& r = requests[sc.id];
      [[maybe_unused]] const bool grown = grow(sc.id, requests, q, metrics);
      assert(grown);
      const std::int64_t c = r.num_computed;
      const auto held = static_cast<std::int64_t>(r.blocks.size());
      max_context = std::max(max_context, c);
      min_remaining = std::min(min_remaining, r.output_tokens - r.num_output);
      if (held * page < c + 2 * q) max_need += blocks_for_tokens(c + 2 * q) - held;
    }
    for (std::size_t g = 0; g < num_groups; ++g) {
      const data::Mixer& m = model.mixer(g);
      ff_keys_[g] = m.sliding_window_tokens > 0 ? static_cast<double>(num * m.sliding_window_tokens)
                                                 : static_cast<double>(sum_context + num * q);
    }
    model.step_times(ff_keys_, ff_index_, static_cast<double>(max_context) + model.q_per_seq(), ff_times_);
    metrics.on_iteration(ff_times_, n, static_cast<double>(kv_.num_used()) / kv_blocks);
    prev_end = end;
    end += std::max(core::from_seconds(ff_times_.total_s), core::Duration{1});
  }
  if (s == 1) return step_end_at;
  for (const Scheduled& sc : scheduled_) {
    Request& r = requests[sc.id];
    r.last_token_at = prev_end;
    r.scheduled_step = step_;
  }
  return end;
}

}  // namespace tycoon::serving
