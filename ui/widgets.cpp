#include "ui/widgets.h"

#include <algorithm>

#include "ui/format.h"
#include "ui/theme.h"

namespace tycoon::ui {

void kpi_card(const char* id, std::string_view label, const std::string& value, const std::string& sub, ImU32 sub_color,
              float width, const char* tooltip) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float height = st.WindowPadding.y * 2 + ImGui::GetTextLineHeight() * 2 + theme::font_big()->FontSize +
                       st.ItemSpacing.y * 2 + 4;
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

double sum_last(const game::History& h, game::Series s, std::size_t hours) {
  const auto& v = h[s];
  double sum = 0;
  for (std::size_t i = v.size() > hours ? v.size() - hours : 0; i < v.size(); ++i) sum += v[i];
  return sum;
}

double last_value(const game::History& h, game::Series s, double fallback) {
  const auto& v = h[s];
  return v.empty() ? fallback : v.back();
}

std::string deployment_label(const game::DeploymentState& d) {
  return id_label(d.id) + " " + d.model + " on " + std::to_string(d.replicas) + "×" +
         std::to_string(d.recipe.tensor_parallel) + " " + d.chip + " (" + d.segment + ")";
}

const game::DeploymentHour* last_hour_of(const game::GameState& s, std::int64_t id) {
  for (auto it = s.deployment_history.rbegin(); it != s.deployment_history.rend(); ++it) {
    if (it->deployment_id == id) return &*it;
    if (it->hour + 2 < s.hour) break;  // only recent hours
  }
  return nullptr;
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

void muted_wrapped(std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, theme::kMuted);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

namespace {
void boxed(const char* id, const std::string& text, ImU32 color) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, theme::with_alpha(color, 0.12f));
  ImGui::PushStyleColor(ImGuiCol_Border, color);
  const float pad = ImGui::GetStyle().WindowPadding.x;
  const float wrap = ImGui::GetContentRegionAvail().x - 2 * pad - 2;
  ImVec2 ts = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
  ImGui::BeginChild(id, ImVec2(0, ts.y + 2 * ImGui::GetStyle().WindowPadding.y + 2), true, ImGuiWindowFlags_NoScrollbar);
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  ImGui::TextUnformatted(text.c_str());
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

bool lever_locked(const game::Scenario& s, std::string_view lever) { return s.lever_locked(lever); }

void flow(bool first, float width) {
  if (first) return;
  ImGui::SameLine();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
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
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();  // whole UTF-8 characters
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

}  // namespace tycoon::ui
