// Test automation without an ImGui test engine: panels tag widgets by name, and a script of
// steps ("click market.rent.h200.on_demand", "wait_hour 24", "screenshot 03-deployed") turns into
// real input events that the platform shell feeds through its normal input path.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tycoon::ui {

struct TaggedRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float cx() const { return (x0 + x1) * 0.5f; }
  float cy() const { return (y0 + y1) * 0.5f; }
};

// Screen rectangles of the tagged widgets drawn this frame.
class WidgetTags {
 public:
  void clear() { rects_.clear(); }
  void set(std::string name, TaggedRect r) { rects_[std::move(name)] = r; }
  const TaggedRect* find(std::string_view name) const;
  const std::map<std::string, TaggedRect, std::less<>>& all() const { return rects_; }

  // The widget the tutorial rings (a trailing '.' matches a prefix; "" for none). The first time a
  // widget it names is drawn, tag() scrolls its window so that the widget shows whole, unless it
  // already does: once per target, so that the player's own scrolling afterwards wins.
  void want_visible(std::string_view target) {
    if (target != scroll_to_) {
      scroll_to_ = std::string(target);
      scroll_done_ = false;
    }
  }
  bool wants_visible(std::string_view name) const {
    if (scroll_done_ || scroll_to_.empty()) return false;
    return name == scroll_to_ || (scroll_to_.back() == '.' && name.starts_with(scroll_to_));
  }
  void visible_done() { scroll_done_ = true; }

 private:
  std::map<std::string, TaggedRect, std::less<>> rects_;
  std::string scroll_to_;
  bool scroll_done_ = false;
};

// Records the last ImGui item under `name` when it is visible. When `name` is the widget `tags`
// wants visible (the tutorial's ring) and its window shows it only in part or not at all, asks
// that window to scroll it to the middle of its view from the next frame on.
void tag(WidgetTags& tags, std::string_view name);

// Platform-neutral input for the shell to inject.
struct InputEvent {
  enum class Kind { kMove, kPress, kRelease, kWheel, kKeyDown, kKeyUp, kText };
  Kind kind = Kind::kMove;
  float x = 0, y = 0;      // kMove: position; kWheel: y = wheel steps
  int button = 0;          // kPress / kRelease
  std::string key;         // kKeyDown / kKeyUp: "Enter", "Escape", "Tab", "Backspace", "A".."Z", ...
  unsigned codepoint = 0;  // kText
};

// What the script sees of the app each frame.
struct ScriptContext {
  const WidgetTags& tags;
  std::int64_t hour = -1;  // -1: no game running
  bool busy = false;       // simulation hours, commands or previews outstanding
};

struct ScriptActions {
  std::vector<InputEvent> events;
  std::optional<std::string> screenshot;  // save a screenshot of this frame under this name
  bool quit = false;
};

// Runs a script one frame at a time. Steps, one per line ('#' comments):
//   wait N                  frames
//   wait_tag TAG [T]        until TAG is on screen (T frames at most, default 600)
//   click TAG [T]           move, press, release on TAG's center (waits for it like wait_tag)
//   click_at X Y            the same at a position
//   hover TAG [T]
//   scroll TAG N            mouse wheel N steps over TAG
//   key NAME                press and release a key
//   type TEXT               the rest of the line as text input
//   wait_hour H [T]         until the game reaches hour H (default T 6000)
//   wait_idle [T]           until no simulation work is outstanding (default T 3000)
//   screenshot NAME
//   expect_tag TAG          fail unless TAG is on screen now
//   expect_no_tag TAG       fail if TAG is on screen now
//   quit
class ScriptPlayer {
 public:
  // Throws std::runtime_error naming `name:line` for an unknown step or bad argument.
  static ScriptPlayer parse(std::string_view text, const std::string& name);

  ScriptActions next(const ScriptContext& ctx);
  bool done() const { return pc_ >= steps_.size() || failed(); }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // The step being run, for logs ("12: click market.rent.h100.on_demand").
  std::string current() const;
  std::size_t steps_run() const { return pc_; }

 private:
  struct Step {
    int line = 0;
    std::string op;
    std::vector<std::string> args;
    std::string rest;  // the text after the op, for `type`
  };
  void fail(const std::string& why);
  void advance();

  std::string name_;
  std::vector<Step> steps_;
  std::size_t pc_ = 0;
  int phase_ = 0;   // progress within the current step
  int frames_ = 0;  // frames spent in the current step
  float x_ = 0, y_ = 0;
  std::string error_;
};

}  // namespace tycoon::ui
