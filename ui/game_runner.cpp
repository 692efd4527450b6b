#include "ui/game_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "sim/game/save.h"

namespace tycoon::ui {

double hours_per_second(Speed s) {
  switch (s) {
    case Speed::kPaused:
      return 0;
    case Speed::k1x:
      return 1;
    case Speed::k4x:
      return 4;
    case Speed::k16x:
      return 16;
  }
  return 0;
}

GameRunner::GameRunner(std::unique_ptr<game::Game> game, bool threaded, double frame_budget_ms)
    : game_(std::move(game)),
      scenario_(game_->scenario()),
      advisor_(game_->advisor()),
      threaded_(threaded),
      frame_budget_ms_(frame_budget_ms),
      taped_(std::make_unique<game::TapedWork>()) {
  snapshot_ = std::make_shared<const game::GameState>(game_->state());
  finished_ = game_->finished();
  if (threaded_) worker_ = std::thread([this] { worker_loop(); });
}

GameRunner::~GameRunner() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    tasks_.clear();
    hours_due_ = 0;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

std::shared_ptr<const game::GameState> GameRunner::snapshot() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

void GameRunner::submit(game::Command c) {
  {
    std::lock_guard lock(mutex_);
    if (const auto* adv = std::get_if<game::Advance>(&c)) {
      // The tutorial's action steps hold the clock: time waits for the player.
      if (adv->hours >= 1 && !finished_ && !game::tutorial_holds_clock(scenario_, *snapshot_)) hours_due_ += adv->hours;
    } else {
      tasks_.push_back(std::move(c));
    }
  }
  cv_.notify_one();
}

void GameRunner::request_save(std::filesystem::path path) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(SaveRequest{std::move(path)});
  }
  cv_.notify_one();
}

void GameRunner::set_speed(Speed s) {
  speed_ = s;
  if (s == Speed::kPaused) owed_hours_ = 0;
}

void GameRunner::tick(double dt_s) {
  const double rate = hours_per_second(speed_);
  {
    std::lock_guard lock(mutex_);
    if (finished_) {
      speed_ = Speed::kPaused;
      owed_hours_ = 0;
    } else if (rate > 0 && game::tutorial_holds_clock(scenario_, *snapshot_)) {
      // A tutorial step waits for the player: the clock does not run (the speed stays set).
      owed_hours_ = 0;
    } else if (rate > 0) {
      // Earn hours from the clock but never queue more than one ahead of the stepper: when the
      // simulation is slower than the speed asks, the game slows down instead of piling up work.
      owed_hours_ = std::min(owed_hours_ + dt_s * rate, 2.0);
      if (hours_due_ == 0 && owed_hours_ >= 1.0) {
        hours_due_ = 1;
        owed_hours_ -= 1.0;
      }
    }
  }
  if (threaded_) {
    cv_.notify_one();
  } else {
    tick_sliced();
  }
}

void GameRunner::tick_sliced() {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::microseconds(static_cast<std::int64_t>(frame_budget_ms_ * 1e3));
  // A slice is a few events (each at most SlicedSimulation::kStepsPerEvent decode steps): the
  // deadline is checked between slices, so a frame overruns its budget by one slice at most.
  constexpr std::int64_t kEventsPerSlice = 8;
  const std::int64_t sliced0 = taped_->simulations_sliced(), forks0 = taped_->forks();
  bool stepped = false;
  bool counterfactuals_due = false;
  double fork_ms = 0, run_ms = 0;
  std::string what;
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  while (Clock::now() < deadline) {
    // The next piece of work: a command or a save first, else the hour the clock owes (one per frame).
    bool is_save = false;
    std::optional<game::Command> command;
    {
      std::lock_guard lock(mutex_);
      if (stop_) break;
      if (finished_ && tasks_.empty()) {
        if (final_) break;
        counterfactuals_due = true;
        break;
      }
      if (!tasks_.empty()) {
        is_save = std::holds_alternative<SaveRequest>(tasks_.front());
        if (const auto* c = std::get_if<game::Command>(&tasks_.front())) command = *c;
      } else if (hours_due_ == 0 || stepped) {
        break;
      }
    }
    if (!is_save) {
      const game::TapedWork::Work work = [&](game::Game& g) {
        if (command) {
          g.apply(*command);
        } else {
          g.step();
        }
      };
      const std::string id =
          std::to_string(game_->state().hour) + (command ? "|" + game::to_json(*command).dump() : std::string("|step"));
      what = "hour " + std::to_string(game_->state().hour) + (command ? " command" : " step");
      bool ready = false;
      const auto tf = Clock::now();
      while (!(ready = taped_->prepare(*game_, id, work, kEventsPerSlice))) {
        if (Clock::now() >= deadline) break;
      }
      fork_ms += ms_since(tf);
      if (!ready) break;
    }
    {
      serving::ScopedSimulateInterceptor guard(&taped_->tape());
      if (!command && !is_save) stepped = true;
      const auto tr = Clock::now();
      run_one();
      run_ms += ms_since(tr);
    }
    taped_->done();
  }
  double debrief_ms = 0;
  if (counterfactuals_due) {
    const auto td = Clock::now();
    play_counterfactuals(&deadline);
    debrief_ms = ms_since(td);
    what = "the debrief's comparison plays";
  }
  const double ms = ms_since(t0);
  std::lock_guard lock(mutex_);
  stats_.simulations_sliced += taped_->simulations_sliced() - sliced0;
  stats_.forks += taped_->forks() - forks0;
  if (ms > stats_.tick_ms_max) {
    stats_.tick_ms_max = ms;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s: on the fork %.1f ms, the game itself %.1f ms, the debrief %.1f ms",
                  what.c_str(), fork_ms, run_ms, debrief_ms);
    stats_.tick_max_what = buf;
  }
}

std::shared_ptr<const nlohmann::json> GameRunner::revealed_debrief() const {
  std::lock_guard lock(mutex_);
  return revealed_;
}

std::shared_ptr<const game::GameSummary> GameRunner::final_summary() const {
  std::lock_guard lock(mutex_);
  return final_;
}

bool GameRunner::play_counterfactuals(const std::chrono::steady_clock::time_point* deadline) {
  {
    std::lock_guard lock(mutex_);
    if (final_) return true;
  }
  if (!plays_started_) {
    plays_started_ = true;
    plays_ = game::counterfactual_plays(game_->scenario(), game_->state(), game_->catalog(), nullptr, game_->advisor());
    for (std::size_t i = 0; i < plays_.size(); ++i) play_tapes_.push_back(std::make_unique<game::TapedWork>());
  }
  constexpr std::int64_t kEventsPerSlice = 8;  // as in tick_sliced()
  for (std::size_t i = 0; i < plays_.size(); ++i) {
    auto& play = plays_[i];
    while (!play.game->finished()) {
      if (!deadline) {
        play.step();
        continue;
      }
      if (std::chrono::steady_clock::now() >= *deadline) return false;
      auto& taped = *play_tapes_[i];
      const auto& cmds = play.commands;
      const bool take = play.take_good_advice;  // the fork must play the hour exactly as the play will
      const game::TapedWork::Work work = [&cmds, take](game::Game& g) { game::step_scripted(g, cmds, take); };
      const std::string id = play.id + "|" + std::to_string(play.game->state().hour);
      if (!taped.prepare(*play.game, id, work, kEventsPerSlice)) continue;
      {
        serving::ScopedSimulateInterceptor guard(&taped.tape());
        play.step();
      }
      taped.done();
    }
  }
  const auto cf = game::collect(plays_);
  auto summary = std::make_shared<const game::GameSummary>(game::summarize(*game_, &cf));
  plays_.clear();
  play_tapes_.clear();
  std::lock_guard lock(mutex_);
  final_ = std::move(summary);
  idle_cv_.notify_all();
  return true;
}

std::vector<CommandOutcome> GameRunner::take_outcomes() {
  std::lock_guard lock(mutex_);
  std::vector<CommandOutcome> out;
  out.swap(outcomes_);
  return out;
}

bool GameRunner::busy() const {
  std::lock_guard lock(mutex_);
  return working_ || !tasks_.empty() || hours_due_ > 0 || (finished_ && !final_);
}

RunnerStats GameRunner::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void GameRunner::wait_idle() {
  if (!threaded_) {
    while (run_one()) {
    }
    if (finished_) play_counterfactuals(nullptr);
    return;
  }
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock,
                [&] { return stop_ || (!working_ && tasks_.empty() && hours_due_ == 0 && (!finished_ || final_)); });
}

void GameRunner::worker_loop() {
  for (;;) {
    bool counterfactuals = false;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || !tasks_.empty() || hours_due_ > 0 || (finished_ && !final_); });
      if (stop_) return;
      counterfactuals = finished_ && !final_ && tasks_.empty();
    }
    if (counterfactuals) {
      try {
        play_counterfactuals(nullptr);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);
        outcomes_.push_back(
            {snapshot_->hour, "debrief", {false, std::string("the comparison runs failed: ") + e.what()}});
        final_ = std::make_shared<const game::GameSummary>(game::summarize(*game_));
      }
      continue;
    }
    run_one();
  }
}

void GameRunner::publish_locked(std::shared_ptr<const game::GameState> s) {
  snapshot_ = std::move(s);
  finished_ = snapshot_->finished;
  if (finished_) hours_due_ = 0;
}

bool GameRunner::run_one() {
  std::optional<Task> task;
  bool step = false;
  {
    std::lock_guard lock(mutex_);
    if (stop_) return false;
    if (!tasks_.empty()) {
      task = std::move(tasks_.front());
      tasks_.pop_front();
    } else if (hours_due_ > 0) {
      step = true;
    } else {
      idle_cv_.notify_all();
      return false;
    }
    working_ = true;
  }
  CommandOutcome outcome;
  bool has_outcome = false;
  double step_ms = -1;
  if (task) {
    outcome.at_hour = game_->state().hour;
    if (auto* c = std::get_if<game::Command>(&*task)) {
      outcome.what = std::string(game::command_name(*c));
      try {
        outcome.result = game_->apply(*c);
      } catch (const std::exception& e) {
        outcome.result = {false, std::string("the game could not apply it: ") + e.what()};
      }
    } else {
      const auto& save = std::get<SaveRequest>(*task);
      outcome.what = "save";
      try {
        game::save_game(*game_, save.path);
        outcome.result = {true, "Saved to " + save.path.string()};
      } catch (const std::exception& e) {
        outcome.result = {false, e.what()};
      }
    }
    has_outcome = true;
  } else {
    auto t0 = std::chrono::steady_clock::now();
    try {
      game_->step();
    } catch (const std::exception& e) {
      outcome.at_hour = game_->state().hour;
      outcome.what = "step";
      outcome.result = {false, std::string("the simulation failed this hour: ") + e.what()};
      has_outcome = true;
    }
    step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  auto snap = std::make_shared<const game::GameState>(game_->state());
  std::shared_ptr<const nlohmann::json> revealed;
  if (snap->finished) revealed = std::make_shared<const nlohmann::json>(game_->revealed_debrief());
  {
    std::lock_guard lock(mutex_);
    if (revealed) revealed_ = std::move(revealed);  // revealed_debrief() reads it under the lock
    if (step) {
      hours_due_ = std::max(0, hours_due_ - 1);
      if (has_outcome) hours_due_ = 0;  // a failing hour stops the clock
    }
    if (step_ms >= 0) {
      ++stats_.hours_simulated;
      stats_.step_ms_last = step_ms;
      stats_.step_ms_max = std::max(stats_.step_ms_max, step_ms);
      stats_.step_ms_total += step_ms;
      stats_.step_ms.push_back(step_ms);
    }
    if (has_outcome) outcomes_.push_back(std::move(outcome));
    publish_locked(std::move(snap));
    working_ = false;
    if (tasks_.empty() && hours_due_ == 0) idle_cv_.notify_all();
  }
  return true;
}

}  // namespace tycoon::ui
