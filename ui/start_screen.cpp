// The start screen: learn (tutorials), campaign (levels unlock as you pass them), sandbox,
// classroom (a code or seed so a whole class plays the same world), and saved games.
#include <algorithm>
#include <cctype>

#include "sim/classroom/class_code.h"
#include "sim/core/version.h"
#include "sim/game/scoring.h"
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
    if (dot != std::string::npos && dot <= 3 && std::isdigit(static_cast<unsigned char>(label[0])))
      label = label.substr(dot + 2);
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
  std::string sub = broken   ? "does not load: " + e.error
                    : locked ? "pass the level before to unlock"
                             : (e.lesson.empty() ? std::to_string(e.days) + " days" : e.lesson);
  ImGui::PushClipRect(p, ImGui::GetItemRectMax(), true);
  dl->AddText(ImVec2(p.x + 10, p.y + 8 + ImGui::GetTextLineHeight()), broken ? theme::kCost : theme::kMuted,
              elide(sub, width - 20).c_str());
  ImGui::PopClipRect();
  if (stars > 0) {
    std::string s;
    for (int i = 0; i < game::kMaxStars; ++i) s += i < stars ? "★" : "☆";
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

// Class setup (an instructor picks a scenario, locks, seed, length and history and gets a class
// file and a link), starting a class from a file or link, and the Class report screen (standings
// and a student's own row, from the JSON `tycoon class report` writes). The rules are sim/'s
// (classroom::make_class, parse_class_link, class_report_view_from_json); this only gathers
// choices and shows outcomes.
void draw_class_sections(const StartScreenData& data, ViewState& view, CommandQueue& out, float avail) {
  auto& f = view.start;
  const bool class_setup_open = ImGui::CollapsingHeader("Class setup (instructors)");
  tag(view.tags, "start.class_setup");
  if (class_setup_open) {
    std::vector<const ScenarioEntry*> choices;
    for (const auto& e : data.scenarios) {
      if (e.error.empty()) choices.push_back(&e);
    }
    std::stable_sort(choices.begin(), choices.end(), [](const ScenarioEntry* a, const ScenarioEntry* b) {
      return (a->kind == game::ScenarioKind::kClassroom) > (b->kind == game::ScenarioKind::kClassroom);
    });
    const ScenarioEntry* chosen = nullptr;
    for (const auto* e : choices) {
      if (e->id == f.setup_scenario) chosen = e;
    }
    if (!chosen && !choices.empty()) {
      chosen = choices.front();
      f.setup_scenario = chosen->id;
    }
    const float field_w = std::min(360.0f, avail * 0.4f);
    ImGui::SetNextItemWidth(field_w);
    if (ImGui::BeginCombo("Scenario##setup", chosen ? chosen->name.c_str() : "none")) {
      for (const auto* e : choices) {
        if (ImGui::Selectable(e->name.c_str(), e == chosen)) f.setup_scenario = e->id;
      }
      ImGui::EndCombo();
    }
    tag(view.tags, "start.class_setup.scenario");
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputTextWithHint("Class id##setup", "econ-101 (a-z, 0-9, '-')", &f.setup_class_id);
    tag(view.tags, "start.class_setup.id");
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputTextWithHint("Title##setup", "Econ 101, week 3 (optional)", &f.setup_title);
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputTextWithHint("Seed##setup", chosen ? "the scenario's" : "", &f.setup_seed,
                             ImGuiInputTextFlags_CharsDecimal);
    tag(view.tags, "start.class_setup.seed");
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputInt("Days (0: the scenario's)##setup", &f.setup_days);
    tag(view.tags, "start.class_setup.days");
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputTextWithHint("History days before play##setup", chosen ? "the scenario's" : "", &f.setup_history_days,
                             ImGuiInputTextFlags_CharsDecimal);
    tag(view.tags, "start.class_setup.history");
    ImGui::SetNextItemWidth(field_w);
    const char* advisor_items[] = {"the default", "on", "off"};
    ImGui::Combo("Advisor##setup", &f.setup_advisor, advisor_items, 3);
    ImGui::TextDisabled("Levers the class locks (on top of the scenario's own):");
    int column = 0;
    for (auto lever : game::kCommandNames) {
      const std::string name(lever);
      bool on = f.setup_locks[name];
      if (column++ % 4 != 0) ImGui::SameLine(static_cast<float>((column - 1) % 4) * 190 + 8);
      if (ImGui::Checkbox(name.c_str(), &on)) f.setup_locks[name] = on;
      tag(view.tags, "start.class_setup.lock." + name);
    }
    if (data.load_by_path) {
      ImGui::SetNextItemWidth(field_w);
      ImGui::InputTextWithHint("Class file to write##setup", "econ-101.json (empty: only the link)", &f.setup_out);
      tag(view.tags, "start.class_setup.out");
    }
    const bool can = chosen && !f.setup_class_id.empty();
    if (!can) ImGui::BeginDisabled();
    if (ImGui::Button(data.load_by_path && !f.setup_out.empty() ? "Write the class file and link"
                                                                : "Make the class link")) {
      SetUpClass r;
      r.scenario = chosen->path;
      r.choices.class_id = f.setup_class_id;
      r.choices.title = f.setup_title;
      if (!f.setup_seed.empty()) {
        // The link's rule for a seed (sim/classroom): digits only, at most game::kMaxGameSeed.
        try {
          r.choices.seed = classroom::parse_class_link("class=x&scenario=x&seed=" + f.setup_seed).choices.seed;
        } catch (const std::exception& e) {
          view.message(std::string("Seed: ") + e.what(), false, 0);
          r.choices.class_id.clear();
        }
      }
      if (f.setup_days != 0) r.choices.days = f.setup_days;
      if (!f.setup_history_days.empty()) {
        // The link's rule for history days (sim/classroom): 0 (none) up to game::kMaxHistoryDays.
        try {
          r.choices.history_days =
              classroom::parse_class_link("class=x&scenario=x&history=" + f.setup_history_days).choices.history_days;
        } catch (const std::exception& e) {
          view.message(std::string("History days: ") + e.what(), false, 0);
          r.choices.class_id.clear();
        }
      }
      if (f.setup_advisor != 0) r.choices.advisor = f.setup_advisor == 1;
      for (const auto& [lever, on] : f.setup_locks) {
        if (on) r.choices.locked_levers.push_back(lever);
      }
      if (data.load_by_path && !f.setup_out.empty()) r.out = f.setup_out;
      if (!r.choices.class_id.empty()) out.request(std::move(r));
    }
    if (!can) ImGui::EndDisabled();
    tag(view.tags, "start.class_setup.make");
    if (data.class_setup && !data.class_setup->message.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, data.class_setup->ok ? theme::kRevenue : theme::kCost);
      ImGui::TextWrapped("%s", data.class_setup->message.c_str());
      ImGui::PopStyleColor();
      tag(view.tags, "start.class_setup.message");
      if (data.class_setup->ok) {
        // The whole link in the browser; on the desktop, the part after the browser build's address.
        std::string link = data.class_setup->page_url + "?" + data.class_setup->link_query;
        if (data.class_setup->page_url.empty()) {
          ImGui::TextDisabled("Add it to the address the browser build is served at (https://…/index.html?class=…):");
        }
        ImGui::SetNextItemWidth(-1);
        ImGui::InputText("##classlink", &link, ImGuiInputTextFlags_ReadOnly);
        tag(view.tags, "start.class_setup.link");
        if (ImGui::Button("Copy the link")) ImGui::SetClipboardText(link.c_str());
      }
    }
  }
  const bool class_start_open = ImGui::CollapsingHeader("Start a class (file or link)");
  tag(view.tags, "start.class_start");
  if (class_start_open) {
    const float field_w = std::min(520.0f, avail * 0.5f);
    if (data.load_by_path) {
      ImGui::SetNextItemWidth(field_w);
      ImGui::InputTextWithHint("##classfile", "path/to/class.json", &f.class_file);
      tag(view.tags, "start.class_start.file");
      ImGui::SameLine();
      if (ImGui::Button("Start from the class file") && !f.class_file.empty())
        out.request(StartClass{f.class_file, {}});
    }
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputTextWithHint("##classlinkin", "?class=econ-101&scenario=...&seed=...", &f.class_link);
    tag(view.tags, "start.class_start.link");
    ImGui::SameLine();
    if (ImGui::Button("Start from the link") && !f.class_link.empty()) {
      auto q = f.class_link;
      if (auto at = q.find('?'); at != std::string::npos) q = q.substr(at + 1);
      out.request(StartClass{{}, q});
    }
  }
  const bool class_report_open = ImGui::CollapsingHeader("Class report");
  tag(view.tags, "start.class_report");
  if (class_report_open) {
    if (!data.load_by_path) {
      muted_wrapped(
          "Import… (top right) the report's JSON, report.json beside report.html from `tycoon class "
          "report`: it shows here. Import… of a class file starts its class.");
    }
    if (data.load_by_path) {
      ImGui::SetNextItemWidth(std::min(520.0f, avail * 0.5f));
      ImGui::InputTextWithHint("##reportpath", "path/to/report.json (beside report.html)", &f.report_path);
      tag(view.tags, "start.class_report.path");
      ImGui::SameLine();
      if (ImGui::Button("Load the report") && !f.report_path.empty()) out.request(LoadClassReport{f.report_path});
      tag(view.tags, "start.class_report.load");
    }
    if (!data.class_report_error.empty()) error_box("##class_report_error", data.class_report_error);
    if (const auto* r = data.class_report) {
      const std::string title = r->spec.title.empty() ? "Class " + r->spec.class_id : r->spec.title;
      theme::heading(title);
      ImGui::TextDisabled("%s (%s), seed %llu, %d day%s: %zu ranked, %zu rejected", r->scenario_name.c_str(),
                          r->spec.scenario.c_str(), static_cast<unsigned long long>(r->spec.seed), r->spec.days,
                          r->spec.days == 1 ? "" : "s", r->standings.size(), r->rejected.size());
      ImGui::SetNextItemWidth(std::min(300.0f, avail * 0.3f));
      ImGui::InputTextWithHint("##reportstudent", "your name, as you submitted", &f.report_student);
      tag(view.tags, "start.class_report.student");
      const auto* mine = r->find(f.report_student);
      if (mine) {
        ImGui::Text("%s: #%d of %zu by score (%.1f), #%d by profit (%s), #%d by SLO (%s)", mine->student.c_str(),
                    mine->rank_score, r->standings.size(), mine->score, mine->rank_profit,
                    fmt_usd(mine->profit_usd).c_str(), mine->rank_slo, fmt_pct(mine->slo_attainment).c_str());
        tag(view.tags, "start.class_report.mine");
        if (mine->advice_calls > 0) {
          ImGui::TextDisabled("Advice: %lld right calls of %lld proposals", static_cast<long long>(mine->right_calls),
                              static_cast<long long>(mine->advice_calls));
        }
      } else if (!f.report_student.empty()) {
        ImGui::TextDisabled("'%s' is not among the ranked students.", f.report_student.c_str());
      }
      if (ImGui::BeginTable("standings", 7, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* h : {"#", "Student", "Score", "Profit", "#profit", "SLO", "#SLO"}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (const auto& row : r->standings) {
          ImGui::TableNextRow();
          if (&row == mine) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, theme::with_alpha(theme::kAccent, 0.25f));
          ImGui::TableNextColumn();
          ImGui::Text("%d", row.rank_score);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(row.student.c_str());
          if (row.stopped_at_hour) {
            ImGui::SameLine();
            ImGui::TextDisabled("(unfinished: stopped at hour %lld)", static_cast<long long>(*row.stopped_at_hour));
          }
          ImGui::TableNextColumn();
          ImGui::Text("%.1f", row.score);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted((fmt_usd(row.profit_usd) + (row.bankrupt ? " (bankrupt)" : "")).c_str());
          ImGui::TableNextColumn();
          ImGui::Text("%d", row.rank_profit);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(fmt_pct(row.slo_attainment).c_str());
          ImGui::TableNextColumn();
          ImGui::Text("%d", row.rank_slo);
        }
        for (const auto& b : r->benchmarks) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TableNextColumn();
          ImGui::TextDisabled("%s", b.name.c_str());
          ImGui::TableNextColumn();
          ImGui::TextDisabled("%.1f", b.score);
          ImGui::TableNextColumn();
          ImGui::TextDisabled("%s", fmt_usd(b.profit_usd).c_str());
          ImGui::TableNextColumn();
          ImGui::TableNextColumn();
          ImGui::TextDisabled("%s", fmt_pct(b.slo_attainment).c_str());
        }
        ImGui::EndTable();
      }
      tag(view.tags, "start.class_report.standings");
      for (const auto& n : r->instructive) {
        ImGui::BulletText("%s: %s, %s", n.what.c_str(), n.student.c_str(), n.why.c_str());
      }
      for (const auto& n : r->rejected) {
        ImGui::PushStyleColor(ImGuiCol_Text, theme::kCost);
        ImGui::BulletText("rejected %s (%s): %s", n.what.c_str(), n.student.c_str(), n.why.c_str());
        ImGui::PopStyleColor();
      }
    }
  }
}

}  // namespace

void draw_start_screen(const StartScreenData& data, ViewState& view, CommandQueue& out) {
  const float avail = ImGui::GetContentRegionAvail().x;
  ImGui::Dummy(ImVec2(0, 10));
  ImGui::PushFont(theme::font_title());
  theme::text_colored(theme::kAccent, "Inference Tycoon");
  ImGui::PopFont();
  // The build, so that a screenshot or a bug report says which one it was; on the title's baseline.
  const float title_h = ImGui::GetItemRectSize().y;
  ImGui::SameLine();
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + title_h - ImGui::GetTextLineHeight() - 4);
  ImGui::TextDisabled("%s", core::version_line().c_str());
  tag(view.tags, "start.version");
  muted_wrapped(
      "Run an LLM inference business: rent GPUs, pick models, engines and recipes, set token prices, serve "
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
  column("Campaign", "Levels in order; pass one to unlock the next.", data, view, out, {game::ScenarioKind::kCampaign},
         w);
  ImGui::SameLine();
  column("Sandbox", "Open worlds to try anything.", data, view, out,
         {game::ScenarioKind::kSandbox, game::ScenarioKind::kAnalyst}, w);
  ImGui::SameLine();

  // Classroom: a scenario plus a code; the same code gives every student the same world.
  ImGui::BeginChild("Classroom", ImVec2(w, 330), true);
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted("Classroom");
  ImGui::PopFont();
  muted_wrapped(
      "Type the code your teacher gave you (or a seed number): everyone with the same code plays the same "
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
    ImGui::TextDisabled("seed %llu",
                        static_cast<unsigned long long>(classroom::seed_from_code(view.start.classroom_code)));
  }
  const bool can = chosen && !view.start.classroom_code.empty();
  if (!can) ImGui::BeginDisabled();
  if (ImGui::Button("Start class game", ImVec2(-1, 0))) {
    out.request(StartGame{chosen->path, classroom::seed_from_code(view.start.classroom_code),
                          "class code " + view.start.classroom_code});
  }
  if (!can) ImGui::EndDisabled();
  tag(view.tags, "start.classroom.start");
  ImGui::EndChild();

  ImGui::Spacing();
  draw_class_sections(data, view, out, avail);

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
