// Replica's decode fast path (declared in replica.h): runs of decode-only steps applied in one
// go, bit for bit as the step-by-step path (start_iteration / finish_iteration in replica.cpp)
// would apply them. docs/performance.md describes the mechanism and its limits.
#include "sim/serving/replica.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace tycoon::serving {

namespace {
// max(core::from_seconds(s), 1 ns) for a step's time: the same rounding (to nearest, halves away
// from zero, as llround) without the library call while s * 1e9 < 2^52 (then the truncation is
// floor and the remainder exact); from_seconds itself otherwise (and for its range checks).
core::Duration step_duration(double s) {
  const double ns = s * 1e9;
  if (ns >= 0 && ns < 4.0e15) {
    const auto whole = static_cast<std::int64_t>(ns);
    const std::int64_t rounded = whole + (ns - static_cast<double>(whole) >= 0.5 ? 1 : 0);
    return core::Duration{std::max<std::int64_t>(rounded, 1)};
  }
  return std::max(core::from_seconds(s), core::Duration{1});
}
}  // namespace

const perf::DecodeStepModel& Replica::decode_model(std::size_t num_decode) {
  if (decode_models_.size() <= num_decode) decode_models_.resize(num_decode + 1);
  auto& m = decode_models_[num_decode];
  if (!m) m.emplace(*deployment_, *cal_, static_cast<std::int64_t>(num_decode));
  return *m;
}

core::Time Replica::fast_forward(core::Time step_end_at, core::Time horizon_at, std::vector<Request>& requests,
                                 core::RngStream& acceptance, ServingMetrics& metrics, std::int64_t max_steps) {
  assert(busy_);
  if (!p_.fast_forward_decode || step_end_at >= horizon_at || max_steps < 1) return step_end_at;
  if (sampler_) return fast_forward_spec(step_end_at, horizon_at, requests, acceptance, metrics, max_steps);
  if (!run_begin(step_end_at, core::Time{}, requests)) return step_end_at;
  for (std::int64_t k = 0; k < max_steps && ff_end_ < horizon_at && run_ready(); ++k) run_step(requests, metrics);
  run_finish(requests);
  return ff_end_;
}

bool Replica::run_begin(core::Time step_end_at, core::Time step_start_at, const std::vector<Request>& requests) {
  assert(busy_ && !sampler_);
  if (!p_.fast_forward_decode) return false;
  // Asynchronous scheduling: a request that arrived during the step in flight becomes schedulable
  // at a step start (promote_held()), which a run would skip (a replica joining an interleaved run
  // does so from its step end).
  if (p_.async_scheduling && !held_now_.empty()) return false;
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
  bool any_hashed = false;  // some sequence's full blocks get hashed (shared content, prefix caching)
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
    any_hashed = any_hashed || (hashing && !r.content.unique);
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
  ff_hashing_ = any_hashed;
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
  if (ff_hashing_ && first < last) {
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
    assert(ff_base_computed_[i] + s == static_cast<std::int64_t>(r.blocks.size()) * page);
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
  ff_end_ = end + step_duration(ff_times_.total_s);
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
                                      core::RngStream& acceptance, ServingMetrics& metrics, std::int64_t max_steps) {
  // The same entry conditions as the plain run (see fast_forward and run_begin).
  if (!prefills_.empty() || scheduled_.empty() || scheduled_.size() != running_.size()) return step_end_at;
  if (p_.async_scheduling && !held_now_.empty()) return step_end_at;
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
    if (end >= horizon_at || max_need > kv_.num_available() || s > max_steps) break;

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
