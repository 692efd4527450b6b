// The desktop game started from a student's link to a class server (tycoon_game --class-link
// http://host:port/?code=CODE, the link the browser opens): the class comes from the server, the
// game on screen is handed in to it when it ends and whenever the player presses Hand in (bottom
// right), finished or not, as the browser page does (server/class_client.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ui/app.h"
#include "ui/automation.h"
#include "ui/desktop/class_client.h"

namespace tycoon::ui::desktop {

// Px the status strip leaves free at its right end for the Hand in button and its answer.
inline constexpr float kHandInWidth = 330;

struct StudentSession {
  std::string student, class_id;
  std::string policy;  // "the best attempt counts, deadline 2026-12-11T17:00:00Z"
  std::unique_ptr<HandInClient> client;
};

// Asks the link's server for the student's class and starts its game in `app`; nothing (and
// `error` says why: a bad link, an unreachable server, a code it does not know) when it cannot.
std::optional<StudentSession> start_student_link(App& app, const std::string& link, std::string& error);

// Polls the hand-in (the end's goes by itself) and draws the Hand in button with the last answer,
// over the right end of the status strip, tagged class.hand_in for scripts. Call after the app's
// frame, before ImGui::Render.
void draw_hand_in(StudentSession& s, WidgetTags& tags);

}  // namespace tycoon::ui::desktop
