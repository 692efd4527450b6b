// The start screen: learn (tutorials), campaign (levels unlock as you pass them), sandbox,
// classroom (a code or seed so a whole class plays the same world), and saved games.
#include <algorithm>
#include <cctype>

#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

namespace tycoon::ui {

namespace {

bool scenario_button(const ScenarioEntry& e, ViewState& view, bool locked, int stars, float width) {
  ImGui::PushID(e.id.c_str());
  const bool broken = !e.error.empty();
  std::string label = e.name;
  if (e.level) {
    // "3. Agentic coding" -> "Level 3 · Agentic coding".
    auto dot = label.find(". ");
    if (dot != std::string::npos && dot <= 3 && std::isdigit(static_cast<unsigned char>(label[0]))) label = label.substr(dot + 2);
    label = "Level " + std::to_string(*e.level) + " · " + label;
  }
  if (locked) label = "Locked · " + label;
  if (locked || broken) ImGui::BeginDisabled();
  const float h = ImGui::GetTextLineHeight() * 2 + 14;
  ImGui::PushStyleVar(ImGuiStyleVar_ButtonTextAlign, ImVec2(0.0f, 0.5f));
  bool clicked = ImGui::Button(("##b" + e.id).c_str(), ImVec2(width, h));
  ImGui::PopStyleVar();
  if (locked || broken) ImGui::EndDisabled();
  tag(view.tags, "start.scenario." + e.id);
  // Text over the button: name, then the lesson in muted color.
  ImVec2 p = ImGui::GetItemRectMin();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float text_w = width - 20 - (stars > 0 ? 48 : 0);
  dl->AddText(ImVec2(p.x + 10, p.y + 6), locked || broken ? theme::kMuted : theme::kText, elide(label, text_w).c_str());
  std::string sub = broken ? "does not load: " + e.error
                           : locked ? "pass the level before to unlock"
                                    : (e.lesson.empty() ? std::to_string(e.days) + " days" : e.lesson);
  ImGui::PushClipRect(p, ImGui::GetItemRectMax(), true);
  dl->AddText(ImVec2(p.x + 10, p.y + 8 + ImGui::GetTextLineHeight()), broken ? theme::kCost : theme::kMuted,
              elide(sub, width - 20).c_str());
  ImGui::PopClipRect();
  if (stars > 0) {
    std::string s;
    for (int i = 0; i < 3; ++i) s += i < stars ? "★" : "☆";
    ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(ImGui::GetItemRectMax().x - ts.x - 10, p.y + 6), theme::kWarn, s.c_str());
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) && (broken || !e.lesson.empty())) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(broken ? e.error.c_str() : e.lesson.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  ImGui::PopID();
  return clicked && !locked && !broken;
}

void column(const char* title, const char* blurb, const StartScreenData& data, ViewState& view, CommandQueue& out,
            std::initializer_list<game::ScenarioKind> kinds, float width) {
  ImGui::BeginChild(title, ImVec2(width, 330), true);
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted(title);
  ImGui::PopFont();
  muted_wrapped(blurb);
  ImGui::Spacing();
  bool any = false;
  for (const auto& e : data.scenarios) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) continue;
    any = true;
    const bool locked = !unlocked(data.scenarios, e, data.progress);
    auto it = data.progress.best_stars.find(e.id);
    if (scenario_button(e, view, locked, it == data.progress.best_stars.end() ? 0 : it->second,
                        ImGui::GetContentRegionAvail().x)) {
      out.request(StartGame{e.path, std::nullopt, ""});
    }
  }
  if (!any) ImGui::TextDisabled("None installed.");
  ImGui::EndChild();
}

}  // namespace

void draw_start_screen(const StartScreenData& data, ViewState& view, CommandQueue& out) {
  const float avail = ImGui::GetContentRegionAvail().x;
  ImGui::Dummy(ImVec2(0, 10));
  ImGui::PushFont(theme::font_title());
  theme::text_colored(theme::kAccent, "Inference Tycoon");
  ImGui::PopFont();
  muted_wrapped("Run an LLM inference business: rent GPUs, pick models, engines and recipes, set token prices, serve "
                "real traffic shapes — and keep the margin. Under the game runs a calibrated simulator of inference "
                "serving.");
  ImGui::Spacing();
  if (!data.error.empty()) {
    error_box("##start_error", data.error);
    tag(view.tags, "start.error");
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float w = (avail - 3 * gap) / 4;
  column("Learn", "Short guided games that teach one idea each.", data, view, out, {game::ScenarioKind::kTutorial}, w);
  ImGui::SameLine();
  column("Campaign", "Levels in order; pass one to unlock the next.", data, view, out, {game::ScenarioKind::kCampaign}, w);
  ImGui::SameLine();
  column("Sandbox", "Open worlds to try anything.", data, view, out,
         {game::ScenarioKind::kSandbox, game::ScenarioKind::kAnalyst}, w);
  ImGui::SameLine();

  // Classroom: a scenario plus a code; the same code gives every student the same world.
  ImGui::BeginChild("Classroom", ImVec2(w, 330), true);
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted("Classroom");
  ImGui::PopFont();
  muted_wrapped("Type the code your teacher gave you (or a seed number): everyone with the same code plays the same "
                "random world.");
  ImGui::Spacing();
  std::vector<const ScenarioEntry*> choices;
  for (const auto& e : data.scenarios) {
    if (e.error.empty() && (e.kind == game::ScenarioKind::kClassroom || e.kind == game::ScenarioKind::kTutorial ||
                            e.kind == game::ScenarioKind::kSandbox || e.kind == game::ScenarioKind::kCampaign)) {
      choices.push_back(&e);
    }
  }
  std::stable_sort(choices.begin(), choices.end(), [](const ScenarioEntry* a, const ScenarioEntry* b) {
    return (a->kind == game::ScenarioKind::kClassroom) > (b->kind == game::ScenarioKind::kClassroom);
  });
  const ScenarioEntry* chosen = nullptr;
  for (const auto* e : choices) {
    if (e->id == view.start.classroom_scenario) chosen = e;
  }
  if (!chosen && !choices.empty()) {
    chosen = choices.front();
    view.start.classroom_scenario = chosen->id;
  }
  ImGui::TextDisabled("Scenario");
  ImGui::SetNextItemWidth(-1);
  const std::string preview =
      chosen ? elide(chosen->name, ImGui::CalcItemWidth() - ImGui::GetFrameHeight() - 8) : std::string("none");
  if (ImGui::BeginCombo("##classroom_scenario", preview.c_str())) {
    for (const auto* e : choices) {
      if (ImGui::Selectable(e->name.c_str(), e == chosen)) view.start.classroom_scenario = e->id;
    }
    ImGui::EndCombo();
  }
  tag(view.tags, "start.classroom.scenario");
  ImGui::TextDisabled("Class code or seed");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##code", "e.g. ECON-101 or 12345", &view.start.classroom_code);
  tag(view.tags, "start.classroom.code");
  if (!view.start.classroom_code.empty()) {
    ImGui::TextDisabled("seed %llu", static_cast<unsigned long long>(seed_from_code(view.start.classroom_code)));
  }
  const bool can = chosen && !view.start.classroom_code.empty();
  if (!can) ImGui::BeginDisabled();
  if (ImGui::Button("Start class game", ImVec2(-1, 0))) {
    out.request(StartGame{chosen->path, seed_from_code(view.start.classroom_code), "class code " + view.start.classroom_code});
  }
  if (!can) ImGui::EndDisabled();
  tag(view.tags, "start.classroom.start");
  ImGui::EndChild();

  // Saved games.
  ImGui::Spacing();
  ImGui::BeginChild("Saved games", ImVec2(0, 0), true);
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted("Continue a saved game");
  ImGui::PopFont();
  if (data.load_by_path) {
    ImGui::SetNextItemWidth(std::min(520.0f, avail * 0.5f));
    ImGui::InputTextWithHint("##loadpath", "path/to/save.json", &view.start.load_path);
    tag(view.tags, "start.load.path");
    ImGui::SameLine();
    if (ImGui::Button("Load")) {
      if (view.start.load_path.empty()) {
        view.message("Type the path of a save file, or pick one below.", false, 0);
      } else {
        out.request(LoadGame{view.start.load_path});
      }
    }
    tag(view.tags, "start.load.button");
  }
  if (data.saves.empty()) {
    ImGui::TextDisabled(data.load_by_path ? "No saves yet: save from the top bar while playing."
                                          : "No saves yet: save from the top bar while playing, or use Import… above.");
  }
  for (std::size_t i = 0; i < data.saves.size(); ++i) {
    const auto& f = data.saves[i];
    if (ImGui::Selectable(f.filename().string().c_str())) out.request(LoadGame{f});
    tag(view.tags, "start.load." + f.filename().string());
    tag(view.tags, "start.load.#" + std::to_string(i));  // newest first
  }
  ImGui::EndChild();
}

}  // namespace tycoon::ui
