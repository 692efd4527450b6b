#include "ui/previews.h"

#include <chrono>

#include "sim/perf/profile_lookup.h"

namespace tycoon::ui {

namespace {
constexpr std::size_t kMaxCached = 4000;
constexpr std::size_t kMaxQueued = 256;
}  // namespace

Previews::Previews(const data::Catalog& catalog, bool threaded) : catalog_(catalog), threaded_(threaded) {
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

const perf::CalibrationProfile& Previews::calibration(const std::string& chip) {
  auto it = calibrations_.find(chip);
  if (it == calibrations_.end()) {
    it = calibrations_.emplace(chip, perf::calibration_for(catalog_, catalog_.accelerator(chip))).first;
  }
  return it->second;
}

std::shared_ptr<const PreviewResult> Previews::get(const std::string& key, const std::function<ServingJob()>& make) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = done_.find(key); it != done_.end()) return it->second;
    if (queued_.count(key)) return nullptr;
  }
  ServingJob job;
  try {
    job = make();
  } catch (const std::exception& e) {
    auto r = std::make_shared<PreviewResult>();
    r->error = e.what();
    std::lock_guard lock(mutex_);
    done_[key] = r;
    return r;
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

std::shared_ptr<const PreviewResult> Previews::peek(const std::string& key) const {
  std::lock_guard lock(mutex_);
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  return nullptr;
}

std::size_t Previews::pending() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + (running_ ? 1 : 0);
}

void Previews::run_pending() {
  if (!threaded_) run_one();
}

void Previews::wait_idle() {
  if (!threaded_) {
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
    r->summary = serving::simulate(job.config, job.calibration);
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
