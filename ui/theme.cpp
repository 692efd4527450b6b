#include "ui/theme.h"

#include <array>
#include <optional>
#include <string>

#include "ui/format.h"

namespace tycoon::ui::theme {

namespace {

constexpr std::array<ImU32, 8> kSeries = {IM_COL32(86, 156, 255, 255), IM_COL32(92, 205, 120, 255),
                                          IM_COL32(255, 190, 80, 255), IM_COL32(178, 128, 255, 255),
                                          IM_COL32(46, 196, 182, 255), IM_COL32(239, 99, 99, 255),
                                          IM_COL32(240, 150, 90, 255), IM_COL32(200, 200, 210, 255)};

// Latin-1, punctuation (dashes, bullets), arrows, math minus, geometric shapes, stars. ImGui keeps
// the pointer until the atlas is built, so it lives for the program.
constexpr ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2030, 0x203A, 0x2190, 0x21FF, 0x2212, 0x2212,
                                    0x2248, 0x2265, 0x25A0, 0x25FF, 0x2600, 0x26FF, 0x2700, 0x27BF, 0};
// The big-number and title fonts draw numbers, units, names and rating stars only: a short range
// keeps the atlas (rasterized at start-up, in the browser too) small.
constexpr ImWchar kLargeGlyphRanges[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2030, 0x203A, 0x2190,
                                         0x2199, 0x2212, 0x2212, 0x2605, 0x2606, 0};

}  // namespace

ImU32 series_color(int i) { return kSeries[static_cast<std::size_t>(i) % kSeries.size()]; }

ImVec4 vec4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

ImU32 with_alpha(ImU32 c, float alpha) {
  ImVec4 v = vec4(c);
  v.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(v);
}

void apply_style() {
  ImGuiStyle& s = ImGui::GetStyle();
  ImGui::StyleColorsDark(&s);
  s.WindowRounding = 6;
  s.ChildRounding = 6;
  s.FrameRounding = 4;
  s.PopupRounding = 6;
  s.GrabRounding = 4;
  s.TabRounding = 4;
  s.ScrollbarRounding = 6;
  s.WindowBorderSize = 1;
  s.FrameBorderSize = 0;
  s.WindowPadding = ImVec2(12, 10);
  s.FramePadding = ImVec2(8, 4);
  s.ItemSpacing = ImVec2(8, 6);
  s.ItemInnerSpacing = ImVec2(6, 4);
  s.CellPadding = ImVec2(6, 3);
  s.ScrollbarSize = 12;
  auto* c = s.Colors;
  c[ImGuiCol_Text] = vec4(kText);
  c[ImGuiCol_TextDisabled] = vec4(kMuted);
  c[ImGuiCol_WindowBg] = vec4(kPanel);
  c[ImGuiCol_ChildBg] = vec4(IM_COL32(0, 0, 0, 0));
  c[ImGuiCol_PopupBg] = vec4(kPanelRaised);
  c[ImGuiCol_Border] = vec4(kBorder);
  c[ImGuiCol_FrameBg] = vec4(IM_COL32(38, 44, 60, 255));
  c[ImGuiCol_FrameBgHovered] = vec4(IM_COL32(48, 56, 76, 255));
  c[ImGuiCol_FrameBgActive] = vec4(IM_COL32(56, 66, 90, 255));
  c[ImGuiCol_TitleBg] = vec4(kPanel);
  c[ImGuiCol_TitleBgActive] = vec4(kPanelRaised);
  c[ImGuiCol_MenuBarBg] = vec4(kPanelRaised);
  c[ImGuiCol_Button] = vec4(IM_COL32(44, 52, 70, 255));
  c[ImGuiCol_ButtonHovered] = vec4(IM_COL32(46, 150, 140, 255));
  c[ImGuiCol_ButtonActive] = vec4(kAccent);
  c[ImGuiCol_Header] = vec4(IM_COL32(44, 52, 70, 255));
  c[ImGuiCol_HeaderHovered] = vec4(IM_COL32(46, 120, 115, 200));
  c[ImGuiCol_HeaderActive] = vec4(IM_COL32(46, 150, 140, 255));
  c[ImGuiCol_Tab] = vec4(IM_COL32(32, 37, 50, 255));
  c[ImGuiCol_TabHovered] = vec4(IM_COL32(46, 150, 140, 255));
  c[ImGuiCol_TabActive] = vec4(IM_COL32(38, 110, 105, 255));
  c[ImGuiCol_TabUnfocused] = c[ImGuiCol_Tab];
  c[ImGuiCol_TabUnfocusedActive] = c[ImGuiCol_TabActive];
  c[ImGuiCol_CheckMark] = vec4(kAccent);
  c[ImGuiCol_SliderGrab] = vec4(kAccent);
  c[ImGuiCol_SliderGrabActive] = vec4(IM_COL32(90, 230, 215, 255));
  c[ImGuiCol_Separator] = vec4(kBorder);
  c[ImGuiCol_TableHeaderBg] = vec4(IM_COL32(36, 42, 57, 255));
  c[ImGuiCol_TableBorderStrong] = vec4(kBorder);
  c[ImGuiCol_TableBorderLight] = vec4(IM_COL32(44, 50, 66, 255));
  c[ImGuiCol_TableRowBgAlt] = vec4(IM_COL32(255, 255, 255, 8));
  c[ImGuiCol_PlotHistogram] = vec4(kAccent);
  c[ImGuiCol_ModalWindowDimBg] = vec4(IM_COL32(0, 0, 0, 140));
}

void load_fonts(const char* ttf_path, const char* bold_ttf_path, float base_px) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  auto add = [&](const char* path, float px, const ImWchar* ranges) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    ImFont* f = nullptr;
    if (path && *path) f = io.Fonts->AddFontFromFileTTF(path, px, &cfg, ranges);
    if (!f) {
      ImFontConfig def;
      def.SizePixels = px;
      f = io.Fonts->AddFontDefault(&def);
    }
    return f;
  };
  const bool has_bold = bold_ttf_path && *bold_ttf_path;
  const char* heavy = has_bold ? bold_ttf_path : ttf_path;
  add(ttf_path, base_px, kGlyphRanges);                     // 0: regular
  if (has_bold) add(bold_ttf_path, base_px, kGlyphRanges);  // 1: bold (else regular serves)
  add(heavy, base_px * 1.6f, kLargeGlyphRanges);            // big numbers
  add(heavy, base_px * 2.4f, kLargeGlyphRanges);            // titles
}

namespace {
// Fonts[] is regular, [bold,] big, title: without a bold face, bold is the regular font.
ImFont* font_at(int i) {
  ImGuiIO& io = ImGui::GetIO();
  const bool has_bold = io.Fonts->Fonts.Size >= 4;
  const int at = has_bold ? i : (i <= 1 ? 0 : i - 1);
  if (io.Fonts->Fonts.Size > at) return io.Fonts->Fonts[at];
  return ImGui::GetFont();
}
}  // namespace

ImFont* font_regular() { return font_at(0); }
ImFont* font_bold() { return font_at(1); }
ImFont* font_big() { return font_at(2); }
ImFont* font_title() { return font_at(3); }

ImU32 provenance_color(perf::Provenance p) {
  switch (p) {
    case perf::Provenance::kMeasured:
      return kRevenue;
    case perf::Provenance::kInterpolated:
      return kAccent;
    case perf::Provenance::kExtrapolated:
    case perf::Provenance::kFittedToPublished:
      return kWarn;
    case perf::Provenance::kDatasheet:
      return IM_COL32(200, 140, 140, 255);
  }
  return kMuted;
}

namespace {
std::optional<analysis::ModelErrors>& model_errors() {
  static std::optional<analysis::ModelErrors> errors;
  return errors;
}
}  // namespace

void set_model_errors(analysis::ModelErrors errors) { model_errors() = std::move(errors); }

void provenance_badge(perf::Provenance p) {
  std::string label(provenance_label(p));
  label.insert(label.begin(), '[');
  label.push_back(']');
  ImGui::TextColored(vec4(provenance_color(p)), "%s", label.c_str());
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
    ImGui::TextUnformatted(("Provenance: " + std::string(provenance_label(p))).c_str());
    if (model_errors()) ImGui::TextDisabled("%s", analysis::provenance_explanation(p, *model_errors()).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void text_colored(ImU32 color, std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopStyleColor();
}

void heading(std::string_view text) {
  ImGui::PushFont(font_bold());
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopFont();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y - 2), ImVec2(p.x + w, p.y - 2), kBorder);
  ImGui::Dummy(ImVec2(0, 2));
}

}  // namespace tycoon::ui::theme
