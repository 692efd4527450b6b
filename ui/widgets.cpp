#include "ui/widgets.h"

#include <algorithm>

#include <imgui_internal.h>

#include "sim/game/slo.h"
#include "ui/format.h"
#include "ui/theme.h"

namespace tycoon::ui {

void kpi_card(const char* id, std::string_view label, const std::string& value, const std::string& sub, ImU32 sub_color,
              float width, const char* tooltip) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float height =
      st.WindowPadding.y * 2 + ImGui::GetTextLineHeight() * 2 + theme::font_big()->FontSize + st.ItemSpacing.y * 2 + 4;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, theme::kPanelRaised);
  ImGui::BeginChild(id, ImVec2(width, height), true, ImGuiWindowFlags_NoScrollbar);
  ImGui::TextDisabled("%.*s", static_cast<int>(label.size()), label.data());
  ImGui::PushFont(theme::font_big());
  ImGui::TextUnformatted(value.c_str());
  ImGui::PopFont();
  if (!sub.empty()) theme::text_colored(sub_color, sub);
  ImGui::EndChild();
  ImGui::PopStyleColor();
  wrapped_tooltip(tooltip);
}

double last_value(const game::History& h, game::Series s, double fallback) {
  const auto& v = h[s];
  return v.empty() ? fallback : v.back();
}

std::string deployment_label(const game::DeploymentState& d) {
  return id_label(d.id) + " " + d.model + " on " + std::to_string(d.replicas) + "×" +
         std::to_string(d.recipe.tensor_parallel) + " " + d.chip + " (" + d.segment + ")";
}

const game::DeploymentState* deployment_picker(const GameView& game, ViewState& view, const char* tag_prefix) {
  const auto& ds = game.state.company.deployments;
  if (ds.empty()) {
    view.selected_deployment.reset();
    return nullptr;
  }
  if (!view.selected_deployment || !game.state.company.find_deployment(*view.selected_deployment)) {
    view.selected_deployment = ds.front().id;
  }
  ImGui::TextDisabled("Deployment");
  for (const auto& d : ds) {
    ImGui::SameLine();
    bool selected = d.id == *view.selected_deployment;
    std::string label = id_label(d.id) + " " + d.model + " / " + d.chip;
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, theme::vec4(IM_COL32(38, 110, 105, 255)));
    if (ImGui::Button(label.c_str())) view.selected_deployment = d.id;
    if (selected) ImGui::PopStyleColor();
    tag(view.tags, std::string(tag_prefix) + ".pick." + std::to_string(d.id));
  }
  return game.state.company.find_deployment(*view.selected_deployment);
}

std::string chip_name(const data::Catalog& catalog, const std::string& chip) {
  const auto* a = catalog.find_accelerator(chip);
  return a ? a->name : chip;
}

std::string short_chip_name(const data::Catalog& catalog, const std::string& chip) {
  std::string n = chip_name(catalog, chip);
  for (const char* vendor : {"NVIDIA ", "AMD ", "Google "}) {
    if (n.rfind(vendor, 0) == 0) return n.substr(std::char_traits<char>::length(vendor));
  }
  return n;
}

std::string model_name(const data::Catalog& catalog, const std::string& model) {
  const auto* m = catalog.find_model(model);
  return m ? m->name : model;
}

std::vector<std::string_view> wrap_lines(std::string_view text, float width, const ImFont* font, float font_size) {
  if (!font) font = ImGui::GetFont();
  if (font_size <= 0) font_size = ImGui::GetFontSize();
  auto width_of = [&](std::string_view s) {
    return font->CalcTextSizeA(font_size, FLT_MAX, 0, s.data(), s.data() + s.size()).x;
  };
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string_view para =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    // Greedy: add words while the line fits.
    std::size_t line_begin = 0;
    while (true) {
      std::size_t end = line_begin, fit_end = std::string_view::npos;
      while (end < para.size()) {
        std::size_t next = para.find(' ', end == line_begin ? end : end + 1);
        if (next == std::string_view::npos) next = para.size();
        if (width_of(para.substr(line_begin, next - line_begin)) > width && fit_end != std::string_view::npos) break;
        fit_end = next;
        end = next;
      }
      if (fit_end == std::string_view::npos) fit_end = para.size();
      lines.push_back(para.substr(line_begin, fit_end - line_begin));
      line_begin = fit_end;
      while (line_begin < para.size() && para[line_begin] == ' ') ++line_begin;
      if (line_begin >= para.size()) break;
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

void text_wrapped(std::string_view text) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  float wrap_pos = window->DC.TextWrapPos;
  if (wrap_pos < 0) wrap_pos = 0;
  const float width = std::max(1.0f, ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos));
  std::string joined;
  joined.reserve(text.size() + 8);
  for (std::string_view line : wrap_lines(text, width)) {
    if (!joined.empty()) joined += '\n';
    joined.append(line.data(), line.size());
  }
  // One item with the lines already broken: ImGui's spacing of wrapped lines, its wrap disabled.
  ImGui::PushTextWrapPos(-1.0f);
  ImGui::TextUnformatted(joined.data(), joined.data() + joined.size());
  ImGui::PopTextWrapPos();
}

void muted_wrapped(std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, theme::kMuted);
  text_wrapped(text);
  ImGui::PopStyleColor();
}

namespace {
void boxed(const char* id, const std::string& text, ImU32 color) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, theme::with_alpha(color, 0.12f));
  ImGui::PushStyleColor(ImGuiCol_Border, color);
  const float pad = ImGui::GetStyle().WindowPadding.x;
  const float wrap = ImGui::GetContentRegionAvail().x - 2 * pad - 2;
  const float text_h = static_cast<float>(wrap_lines(text, wrap).size()) * ImGui::GetTextLineHeight();
  ImGui::BeginChild(id, ImVec2(0, text_h + 2 * ImGui::GetStyle().WindowPadding.y + 2), true,
                    ImGuiWindowFlags_NoScrollbar);
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  text_wrapped(text);
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  ImGui::EndChild();
  ImGui::PopStyleColor(2);
}
}  // namespace

void error_box(const char* id, const std::string& text) { boxed(id, text, theme::kCost); }
void warn_box(const char* id, const std::string& text) { boxed(id, text, theme::kWarn); }

void wrapped_tooltip(const char* text) {
  if (!text || !ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 26);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void flow(bool first, float width) {
  if (first) return;
  ImGui::SameLine();
  // The content region's right edge: the window's, or the table column's inside a table.
  const float right = ImGui::GetWindowPos().x + ImGui::GetContentRegionMax().x;
  if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
}

float check_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

std::string elide(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string out = text;
  while (!out.empty() && ImGui::CalcTextSize((out + "…").c_str()).x > width) {
    out.pop_back();
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
      out.pop_back();  // whole UTF-8 characters
  }
  return out + "…";
}

bool input_int_steps(const char* id, int* value, int step, float field_width) {
  ImGui::PushID(id);
  ImGui::SetNextItemWidth(field_width);
  bool changed = ImGui::InputInt("##v", value, 0, 0);
  const float h = ImGui::GetFrameHeight();
  ImGui::SameLine(0, 2);
  if (ImGui::Button("-", ImVec2(h, h))) {
    *value -= step;
    changed = true;
  }
  ImGui::SameLine(0, 2);
  if (ImGui::Button("+", ImVec2(h, h))) {
    *value += step;
    changed = true;
  }
  ImGui::PopID();
  return changed;
}

ImU32 money_color(game::MoneyStanding standing, ImU32 gain) {
  switch (standing) {
    case game::MoneyStanding::kGain:
      return gain;
    case game::MoneyStanding::kEven:
      return theme::kText;
    case game::MoneyStanding::kLoss:
      break;
  }
  return theme::kCost;
}

ImU32 slo_color(double attainment, const game::Scenario& scenario) {
  switch (game::slo_standing(attainment, scenario)) {
    case game::SloStanding::kMet:
      return theme::kRevenue;
    case game::SloStanding::kShort:
      return theme::kWarn;
    case game::SloStanding::kFailing:
      break;
  }
  return theme::kCost;
}

}  // namespace tycoon::ui
