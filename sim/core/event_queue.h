// The discrete-event queue: one total order of events by (time, phase, seq) — STYLE.md point 5.
//   time  — when the event happens (integer ns);
//   phase — the caller's ordering of event kinds that share an instant (lower runs first);
//   seq   — a counter owned by this queue, so events equal in time and phase run in the order
//           they were pushed (FIFO).
// A binary heap over a vector: push and pop are O(log n) and allocate only when the queue grows
// beyond its largest size so far.
#pragma once

#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/time.h"

namespace tycoon::core {

template <typename Payload, typename Phase = std::uint8_t>
class EventQueue {
 public:
  struct Event {
    Time at;
    Phase phase;
    std::uint64_t seq;
    Payload payload;
  };

  void push(Time at, Phase phase, Payload payload) {
    heap_.push_back(Event{at, phase, next_seq_++, std::move(payload)});
    sift_up(heap_.size() - 1);
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // The next event; the queue must not be empty.
  const Event& top() const {
    assert(!heap_.empty());
    return heap_.front();
  }
  // Removes and returns the next event; the queue must not be empty.
  Event pop() {
    assert(!heap_.empty());
    Event out = std::move(heap_.front());
    if (heap_.size() > 1) {
      heap_.front() = std::move(heap_.back());
      heap_.pop_back();
      sift_down(0);
    } else {
      heap_.pop_back();
    }
    return out;
  }
  void reserve(std::size_t n) { heap_.reserve(n); }
  // The event that would come after top() (nullptr when there is none): a heap keeps it among
  // the root's two children.
  const Event* after_top() const {
    if (heap_.size() < 2) return nullptr;
    if (heap_.size() == 2 || before(heap_[1], heap_[2])) return &heap_[1];
    return &heap_[2];
  }
  // Events pushed so far (the next seq).
  std::uint64_t num_pushed() const { return next_seq_; }

  // True when `a` runs before `b`.
  static bool before(const Event& a, const Event& b) {
    if (a.at != b.at) return a.at < b.at;
    if (a.phase != b.phase) return a.phase < b.phase;
    return a.seq < b.seq;
  }

 private:
  void sift_up(std::size_t i) {
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!before(heap_[i], heap_[parent])) break;
      std::swap(heap_[i], heap_[parent]);
      i = parent;
    }
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t best = i, l = 2 * i + 1, r = l + 1;
      if (l < n && before(heap_[l], heap_[best])) best = l;
      if (r < n && before(heap_[r], heap_[best])) best = r;
      if (best == i) return;
      std::swap(heap_[i], heap_[best]);
      i = best;
    }
  }

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace tycoon::core
