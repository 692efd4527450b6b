#include "ui/desktop/class_hand_in.h"

#include <imgui.h>

#include <iostream>

#include "ui/theme.h"

namespace tycoon::ui::desktop {

std::optional<StudentSession> start_student_link(App& app, const std::string& link, std::string& error) {
  StudentLink parsed;
  try {
    parsed = parse_student_link(link);
  } catch (const std::exception& e) {
    error = std::string("--class-link: ") + e.what();
    return std::nullopt;
  }
  const auto answer = fetch_student_class(parsed);
  if (!answer.ok) {
    error = "--class-link: the class server refused the link: " + answer.error;
    return std::nullopt;
  }
  const auto& b = answer.body;
  if (!b.contains("link_query") || !b["link_query"].is_string() || !b.contains("student") ||
      !b["student"].is_string()) {
    error = "--class-link: " + parsed.base_url() + " answered without a class (is it a tycoon class server?)";
    return std::nullopt;
  }
  if (!app.start_class_link(b["link_query"].get<std::string>())) {
    error = "--class-link: " + app.view().messages.back().text;
    return std::nullopt;
  }
  StudentSession s;
  s.student = b["student"].get<std::string>();
  s.class_id = b.value("class", nlohmann::json::object()).value("class_id", std::string());
  s.policy = b.value("policy_text", std::string("the class's policies were not sent"));  // classroom::policy_sentence
  app.set_student(s.student);  // the game's saves are named by class, student and hour
  // The game a hand-in takes is always the one on screen: never a stored save.
  auto game = [&app](bool with_text) -> std::optional<GameOnScreen> {
    const auto g = app.current_game(with_text);
    if (!g) return std::nullopt;
    return GameOnScreen{g->hour, g->end_hour, g->finished, g->save_text};
  };
  s.client = std::make_unique<HandInClient>(std::move(parsed), game);
  std::cout << "tycoon_game: " << s.student << ", class " << s.class_id << ": the game is handed in to "
            << s.client->link().base_url() << " when it ends (or press Hand in); " << s.policy << "\n";
  return s;
}

void draw_hand_in(StudentSession& s, WidgetTags& tags) {
  const std::string before = s.client->message();
  s.client->poll();
  if (s.client->message() != before && !s.client->busy()) std::cout << "tycoon_game: " << s.client->message() << "\n";

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x, vp->Pos.y + vp->Size.y), ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowSize(ImVec2(kHandInWidth, 0));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, theme::kPanelRaised);
  ImGui::Begin("##handin", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::BeginDisabled(s.client->busy());
  if (ImGui::Button(s.client->busy() ? "Handing in..." : "Hand in")) s.client->hand_in();
  ImGui::EndDisabled();
  tag(tags, "class.hand_in");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip("Hand this game in to class %s (the game on screen, finished or not); %s.", s.class_id.c_str(),
                      s.policy.c_str());
  }
  ImGui::SameLine();
  ImGui::TextUnformatted((s.student + ", " + s.class_id).c_str());
  if (!s.client->message().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, s.client->busy() || s.client->last_ok() ? theme::kRevenue : theme::kCost);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + kHandInWidth - 16);
    ImGui::TextUnformatted(s.client->message().c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  ImGui::End();
  ImGui::PopStyleColor();
}

}  // namespace tycoon::ui::desktop
