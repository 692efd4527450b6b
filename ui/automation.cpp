#include "ui/automation.h"

#include <charconv>
#include <sstream>
#include <stdexcept>

#include <imgui.h>
#include <imgui_internal.h>

namespace tycoon::ui {

const TaggedRect* WidgetTags::find(std::string_view name) const {
  auto it = rects_.find(name);
  return it == rects_.end() ? nullptr : &it->second;
}

void tag(WidgetTags& tags, std::string_view name) {
  ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  if (tags.wants_visible(name)) {
    // The window's view (its inner clip rectangle, the part of it not under a scrollbar or title).
    const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
    const ImRect view = w->InnerClipRect;
    if (a.y < view.Min.y || b.y > view.Max.y) {
      // Applied where the window begins next frame (SetScrollFromPosY takes the position relative
      // to the window and adds the scroll itself): the frame drawn now keeps its layout.
      ImGui::SetScrollFromPosY((a.y + b.y) * 0.5f - ImGui::GetWindowPos().y, 0.5f);
    }
    tags.visible_done();
  }
  if (!ImGui::IsItemVisible()) return;
  // Clip to the window so a half-scrolled widget is clicked where it shows.
  ImVec2 wa = ImGui::GetWindowPos();
  ImVec2 ws = ImGui::GetWindowSize();
  TaggedRect r{std::max(a.x, wa.x), std::max(a.y, wa.y), std::min(b.x, wa.x + ws.x), std::min(b.y, wa.y + ws.y)};
  if (r.x1 <= r.x0 || r.y1 <= r.y0) return;
  tags.set(std::string(name), r);
}

namespace {

int to_int(const std::string& s, const std::string& where) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) throw std::runtime_error(where + ": not a number: '" + s + "'");
  return v;
}

}  // namespace

ScriptPlayer ScriptPlayer::parse(std::string_view text, const std::string& name) {
  ScriptPlayer p;
  p.name_ = name;
  std::istringstream in{std::string(text)};
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    line = line.substr(first);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    Step s;
    s.line = n;
    std::istringstream words(line);
    words >> s.op;
    auto space = line.find(' ');
    s.rest = space == std::string::npos ? "" : line.substr(space + 1);
    std::string w;
    while (words >> w) s.args.push_back(w);
    const std::string where = name + ":" + std::to_string(n);
    auto need = [&](std::size_t lo, std::size_t hi) {
      if (s.args.size() < lo || s.args.size() > hi)
        throw std::runtime_error(where + ": wrong number of arguments to " + s.op);
    };
    if (s.op == "wait" || s.op == "wait_hour") {
      need(1, 2);
      for (const auto& a : s.args) to_int(a, where);
    } else if (s.op == "wait_tag" || s.op == "click" || s.op == "hover") {
      need(1, 2);
      if (s.args.size() == 2) to_int(s.args[1], where);
    } else if (s.op == "click_at" || s.op == "scroll") {
      need(2, 2);
      if (s.op == "click_at") to_int(s.args[0], where);
      to_int(s.args[1], where);
    } else if (s.op == "wait_idle") {
      need(0, 1);
      for (const auto& a : s.args) to_int(a, where);
    } else if (s.op == "key" || s.op == "screenshot" || s.op == "expect_tag" || s.op == "expect_no_tag") {
      need(1, 1);
    } else if (s.op == "type") {
      if (s.rest.empty()) throw std::runtime_error(where + ": type needs text");
    } else if (s.op == "quit") {
      need(0, 0);
    } else {
      throw std::runtime_error(where + ": unknown step '" + s.op + "'");
    }
    p.steps_.push_back(std::move(s));
  }
  return p;
}

std::string ScriptPlayer::current() const {
  if (pc_ >= steps_.size()) return "(end)";
  const auto& s = steps_[pc_];
  std::string out = name_ + ":" + std::to_string(s.line) + ": " + s.op;
  for (const auto& a : s.args) out += " " + a;
  return out;
}

void ScriptPlayer::fail(const std::string& why) { error_ = current() + ": " + why; }

void ScriptPlayer::advance() {
  ++pc_;
  phase_ = 0;
  frames_ = 0;
}

ScriptActions ScriptPlayer::next(const ScriptContext& ctx) {
  ScriptActions out;
  // Run steps that finish without needing a frame (screenshot and quit take the frame).
  for (int guard = 0; guard < 64 && !done(); ++guard) {
    const Step& s = steps_[pc_];
    ++frames_;
    auto timeout = [&](std::size_t index, int def) { return s.args.size() > index ? std::stoi(s.args[index]) : def; };
    if (s.op == "wait") {
      if (frames_ >= std::stoi(s.args[0])) advance();
      return out;
    }
    if (s.op == "expect_no_tag") {
      if (ctx.tags.find(s.args[0])) {
        fail("'" + s.args[0] + "' is on screen");
        return out;
      }
      advance();
      continue;
    }
    if (s.op == "wait_tag" || s.op == "expect_tag" || s.op == "click" || s.op == "hover" || s.op == "scroll") {
      const TaggedRect* r = ctx.tags.find(s.args[0]);
      if (phase_ == 0) {
        if (!r) {
          if (s.op == "expect_tag") {
            fail("'" + s.args[0] + "' is not on screen");
            return out;
          }
          int limit = s.op == "scroll" ? 600 : timeout(1, 600);
          if (frames_ > limit) fail("'" + s.args[0] + "' did not appear within " + std::to_string(limit) + " frames");
          return out;
        }
        if (s.op == "wait_tag" || s.op == "expect_tag") {
          advance();
          continue;
        }
        x_ = r->cx();
        y_ = r->cy();
        out.events.push_back({InputEvent::Kind::kMove, x_, y_, 0, "", 0});
        phase_ = 1;
        return out;
      }
      if (s.op == "hover") {
        if (phase_++ >= 2) advance();
        return out;
      }
      if (s.op == "scroll") {
        out.events.push_back({InputEvent::Kind::kWheel, 0, static_cast<float>(std::stoi(s.args[1])), 0, "", 0});
        advance();
        return out;
      }
      if (phase_ == 1) {
        out.events.push_back({InputEvent::Kind::kPress, x_, y_, 0, "", 0});
        phase_ = 2;
        return out;
      }
      out.events.push_back({InputEvent::Kind::kRelease, x_, y_, 0, "", 0});
      advance();
      return out;
    }
    if (s.op == "click_at") {
      x_ = static_cast<float>(std::stoi(s.args[0]));
      y_ = static_cast<float>(std::stoi(s.args[1]));
      if (phase_ == 0) {
        out.events.push_back({InputEvent::Kind::kMove, x_, y_, 0, "", 0});
      } else if (phase_ == 1) {
        out.events.push_back({InputEvent::Kind::kPress, x_, y_, 0, "", 0});
      } else {
        out.events.push_back({InputEvent::Kind::kRelease, x_, y_, 0, "", 0});
        advance();
        return out;
      }
      ++phase_;
      return out;
    }
    if (s.op == "key") {
      if (phase_ == 0) {
        out.events.push_back({InputEvent::Kind::kKeyDown, 0, 0, 0, s.args[0], 0});
        phase_ = 1;
      } else {
        out.events.push_back({InputEvent::Kind::kKeyUp, 0, 0, 0, s.args[0], 0});
        advance();
      }
      return out;
    }
    if (s.op == "type") {
      for (unsigned char c : s.rest) out.events.push_back({InputEvent::Kind::kText, 0, 0, 0, "", c});
      advance();
      return out;
    }
    if (s.op == "wait_hour") {
      if (ctx.hour >= std::stoi(s.args[0])) {
        advance();
        continue;
      }
      if (frames_ > timeout(1, 6000))
        fail("the game did not reach hour " + s.args[0] + " (at " + std::to_string(ctx.hour) + ")");
      return out;
    }
    if (s.op == "wait_idle") {
      // Idle for a few frames in a row, so that results have been drawn.
      if (!ctx.busy) {
        if (++phase_ >= 3) {
          advance();
          continue;
        }
      } else {
        phase_ = 0;
      }
      if (frames_ > (s.args.empty() ? 3000 : std::stoi(s.args[0]))) fail("still busy");
      return out;
    }
    if (s.op == "screenshot") {
      out.screenshot = s.args[0];
      advance();
      return out;
    }
    if (s.op == "quit") {
      out.quit = true;
      advance();
      return out;
    }
    fail("unknown step");
  }
  return out;
}

}  // namespace tycoon::ui
