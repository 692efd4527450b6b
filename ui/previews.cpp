#include "ui/previews.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "sim/perf/profile_lookup.h"

namespace tycoon::ui {

namespace {
constexpr std::size_t kMaxCached = 4000;
constexpr std::size_t kMaxQueued = 256;
using Clock = std::chrono::steady_clock;
// Non-threaded: a key must be asked for this long before its job starts, and a job is dropped
// when no frame asked for it for `kForgetAfter`.
constexpr auto kDebounce = std::chrono::milliseconds(120);
constexpr auto kForgetAfter = std::chrono::milliseconds(750);
constexpr std::int64_t kEventsPerSlice = 8;  // each event at most SlicedSimulation::kStepsPerEvent decode steps
}  // namespace

Previews::Previews(const data::Catalog& catalog, bool threaded) : threaded_(threaded), calibrations_(catalog) {
  if (threaded_) worker_ = std::thread([this] { worker_loop(); });
}

Previews::~Previews() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

const perf::CalibrationProfile& Previews::calibration(const std::string& chip) { return calibrations_(chip); }

std::shared_ptr<const PreviewResult> Previews::get(const std::function<ServingJob()>& make) {
  ServingJob job;
  try {
    job = make();
  } catch (const std::exception& e) {
    auto r = std::make_shared<PreviewResult>();
    r->error = e.what();
    return r;
  }
  const std::string key = job.plan.identity(job.config);
  {
    std::lock_guard lock(mutex_);
    if (!threaded_) {
      const auto now = Clock::now();
      auto [it, fresh] = wanted_.try_emplace(key, Wanted{now, now});
      if (!fresh && now - it->second.last > kForgetAfter) it->second.first = now;
      it->second.last = now;
    }
    if (auto it = done_.find(key); it != done_.end()) return it->second;
    if (queued_.count(key)) return nullptr;
  }
  {
    std::lock_guard lock(mutex_);
    if (done_.size() > kMaxCached) done_.clear();
    queue_.emplace_front(key, std::move(job));
    queued_[key] = true;
    while (queue_.size() > kMaxQueued) {  // forget the oldest requests; they are asked again if still shown
      queued_.erase(queue_.back().first);
      queue_.pop_back();
    }
  }
  cv_.notify_one();
  return nullptr;
}

std::size_t Previews::pending() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + (running_ || current_ ? 1 : 0);
}

void Previews::run_pending(double budget_ms) {
  if (threaded_) return;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::microseconds(static_cast<std::int64_t>(budget_ms * 1e3));
  auto still_wanted = [&](const std::string& key) {
    auto it = wanted_.find(key);
    return it != wanted_.end() && t0 - it->second.last <= kForgetAfter;
  };
  // Drop what the screen stopped asking for: a stale job, queued or in slices.
  if (current_ && !still_wanted(current_key_)) {
    queued_.erase(current_key_);
    current_.reset();
  }
  std::erase_if(queue_, [&](const auto& q) {
    if (still_wanted(q.first)) return false;
    queued_.erase(q.first);
    return true;
  });
  std::erase_if(wanted_, [&](const auto& w) { return t0 - w.second.last > 4 * kForgetAfter; });
  while (Clock::now() < deadline) {
    if (!current_) {
      // The newest request that has been asked for long enough (debounced).
      auto it = std::find_if(queue_.begin(), queue_.end(), [&](const auto& q) {
        auto w = wanted_.find(q.first);
        return w != wanted_.end() && t0 - w->second.first >= kDebounce;
      });
      if (it == queue_.end()) return;
      current_key_ = it->first;
      current_ = std::make_unique<serving::SlicedSimulation>(it->second.config, it->second.calibration());
      current_started_ = Clock::now();
      queue_.erase(it);
    }
    while (!current_->advance(kEventsPerSlice)) {
      if (Clock::now() >= deadline) return;
    }
    store_current();
  }
}

void Previews::store_current() {
  auto r = std::make_shared<PreviewResult>();
  try {
    r->summary = current_->result();
  } catch (const std::exception& e) {
    r->error = e.what();
  }
  r->wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - current_started_).count();
  if (done_.size() > kMaxCached) done_.clear();
  done_[current_key_] = std::move(r);
  queued_.erase(current_key_);
  current_.reset();
}

void Previews::wait_idle() {
  if (!threaded_) {
    if (current_) {
      while (!current_->advance(std::numeric_limits<std::int64_t>::max())) {
      }
      store_current();
    }
    while (run_one()) {
    }
    return;
  }
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [&] { return stop_ || (queue_.empty() && !running_); });
}

void Previews::worker_loop() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
    }
    run_one();
  }
}

bool Previews::run_one() {
  std::string key;
  ServingJob job;
  {
    std::lock_guard lock(mutex_);
    if (queue_.empty() || stop_) {
      idle_cv_.notify_all();
      return false;
    }
    key = std::move(queue_.front().first);
    job = std::move(queue_.front().second);
    queue_.pop_front();
    running_ = true;
  }
  auto r = std::make_shared<PreviewResult>();
  auto t0 = std::chrono::steady_clock::now();
  try {
    r->summary = serving::simulate(job.config, job.calibration());
  } catch (const std::exception& e) {
    r->error = e.what();
  }
  r->wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  {
    std::lock_guard lock(mutex_);
    done_[key] = std::move(r);
    queued_.erase(key);
    running_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
  return true;
}

}  // namespace tycoon::ui
