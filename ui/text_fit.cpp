#include "ui/text_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include <imgui.h>
#include <imgui_internal.h>

namespace tycoon::ui {

namespace {

// Tolerances, px: ImGui rounds glyph positions to whole pixels and clip rectangles to halves.
constexpr float kEdgeTolPx = 0.75f;
// Two glyphs of different labels overlap when their boxes share this much of the smaller one
// (neighbouring glyphs of one word touch, and a descender may reach into the next line's box).
constexpr float kOverlapShare = 0.3f;

struct AtlasGlyph {
  const ImFont* font = nullptr;
  const ImFontGlyph* glyph = nullptr;
};

// Glyphs by their atlas texel: (v0, u0) and (v0, u1). A glyph cut on the CPU (ImGui's fine
// clipping of button and tab labels) keeps one of its two edges: left-cut keeps u1, right-cut u0.
struct GlyphIndex {
  float tex_w = 1, tex_h = 1;
  std::unordered_map<std::uint64_t, AtlasGlyph> by_left, by_right;

  static std::uint64_t key(long v, long u) {
    return (static_cast<std::uint64_t>(v) << 32) | static_cast<std::uint32_t>(u);
  }
  long texel_u(float u) const { return std::lround(u * tex_w); }
  long texel_v(float v) const { return std::lround(v * tex_h); }
  bool on_texel(float u) const { return std::abs(u * tex_w - std::round(u * tex_w)) < 0.01f; }
};

GlyphIndex index_atlas(const ImFontAtlas& atlas) {
  GlyphIndex ix;
  ix.tex_w = static_cast<float>(std::max(1, atlas.TexWidth));
  ix.tex_h = static_cast<float>(std::max(1, atlas.TexHeight));
  for (const ImFont* font : atlas.Fonts) {
    for (const ImFontGlyph& g : font->Glyphs) {
      if (!g.Visible || g.X1 <= g.X0 || g.Y1 <= g.Y0) continue;
      const long v = ix.texel_v(g.V0);
      ix.by_left.emplace(GlyphIndex::key(v, ix.texel_u(g.U0)), AtlasGlyph{font, &g});
      ix.by_right.emplace(GlyphIndex::key(v, ix.texel_u(g.U1)), AtlasGlyph{font, &g});
    }
  }
  return ix;
}

// One glyph as drawn.
struct Drawn {
  float x0, y0, x1, y1;
  float line_top;  // top of its text line, px
  float font_px;   // the size it was drawn at
  unsigned codepoint;
  float cut_px;  // > 0: this much of it is cut off
  int run = -1;  // index of its label (a run of glyphs on one line)
};

struct Run {
  std::size_t first = 0, last = 0;  // glyph indices, inclusive
  std::string text;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float line_top = 0, font_px = 0;
  float cut_px = 0;
};

void append_utf8(std::string& s, unsigned c) {
  char buf[5] = {};
  ImTextCharToUtf8(buf, c);
  s += buf;
}

// The glyph quads of one draw list, in the order they were drawn.
std::vector<Drawn> glyphs_of(const ImDrawList& list, const GlyphIndex& ix, ImTextureID font_tex) {
  std::vector<Drawn> out;
  for (const ImDrawCmd& cmd : list.CmdBuffer) {
    if (cmd.UserCallback || cmd.TextureId != font_tex) continue;
    const ImVec4 clip = cmd.ClipRect;
    const unsigned end = cmd.IdxOffset + cmd.ElemCount;
    // Every primitive is a triangle; a glyph is two of them: (a, a+1, a+2), (a, a+2, a+3).
    for (unsigned i = cmd.IdxOffset; i + 6 <= end;) {
      const ImDrawIdx* id = list.IdxBuffer.Data + i;
      const unsigned a = id[0];
      if (!(id[1] == a + 1 && id[2] == a + 2 && id[3] == a && id[4] == a + 2 && id[5] == a + 3)) {
        i += 3;
        continue;
      }
      const ImDrawVert* v = list.VtxBuffer.Data + cmd.VtxOffset + a;
      const bool rect = v[0].pos.y == v[1].pos.y && v[1].pos.x == v[2].pos.x && v[2].pos.y == v[3].pos.y &&
                        v[0].pos.x == v[3].pos.x && v[0].pos.x < v[1].pos.x && v[0].pos.y < v[3].pos.y;
      if (!rect) {
        i += 3;
        continue;
      }
      i += 6;
      const float u0 = v[0].uv.x, v0 = v[0].uv.y, u1 = v[2].uv.x;
      const AtlasGlyph* hit = nullptr;
      float cut = 0;
      const long tv = ix.texel_v(v0);
      if (ix.on_texel(u0)) {
        if (auto it = ix.by_left.find(GlyphIndex::key(tv, ix.texel_u(u0))); it != ix.by_left.end()) hit = &it->second;
      }
      if (hit && std::abs(u1 - hit->glyph->U1) * ix.tex_w > 0.01f) {
        // Right edge cut on the CPU: the full glyph would be wider in proportion to its texels.
        const float full = (v[1].pos.x - v[0].pos.x) * (hit->glyph->U1 - hit->glyph->U0) / std::max(1e-6f, u1 - u0);
        cut = full - (v[1].pos.x - v[0].pos.x);
      }
      if (!hit && ix.on_texel(u1)) {
        if (auto it = ix.by_right.find(GlyphIndex::key(tv, ix.texel_u(u1))); it != ix.by_right.end()) {
          hit = &it->second;
          const float full = (v[1].pos.x - v[0].pos.x) * (hit->glyph->U1 - hit->glyph->U0) / std::max(1e-6f, u1 - u0);
          cut = full - (v[1].pos.x - v[0].pos.x);  // left edge cut on the CPU
        }
      }
      if (!hit) continue;  // not a glyph (a baked line, an image), or cut at its top
      const ImFontGlyph& g = *hit->glyph;
      Drawn d{};
      d.x0 = v[0].pos.x;
      d.y0 = v[0].pos.y;
      d.x1 = v[1].pos.x;
      d.y1 = v[3].pos.y;
      const float scale = (d.y1 - d.y0) / (g.Y1 - g.Y0);
      d.line_top = d.y0 - g.Y0 * scale;
      d.font_px = hit->font->FontSize * scale;
      d.codepoint = g.Codepoint;
      // Cut on the GPU: the quad reaches past its clip rectangle on the left or right while its
      // line is inside it (text scrolled out of view vertically is not cut).
      const float cy = (d.y0 + d.y1) * 0.5f;
      if (cy > clip.y && cy < clip.w && d.x1 > clip.x && d.x0 < clip.z) {
        cut = std::max(cut, std::max(clip.x - d.x0, d.x1 - clip.z));
      }
      d.cut_px = cut > kEdgeTolPx ? cut : 0;
      out.push_back(d);
    }
  }
  return out;
}

// Groups glyphs into labels: consecutive glyphs on one line, at one size, close together.
std::vector<Run> runs_of(std::vector<Drawn>& gs) {
  std::vector<Run> runs;
  for (std::size_t i = 0; i < gs.size(); ++i) {
    Drawn& g = gs[i];
    bool join = false;
    if (!runs.empty() && i > 0) {
      const Drawn& p = gs[i - 1];
      join = std::abs(g.font_px - p.font_px) < 0.5f && std::abs(g.line_top - p.line_top) < 0.25f * g.font_px &&
             g.x0 >= p.x0 && g.x0 - p.x1 < 1.2f * g.font_px;
    }
    if (!join) {
      Run r;
      r.first = i;
      r.x0 = g.x0;
      r.y0 = g.line_top;
      r.x1 = g.x1;
      r.y1 = g.line_top + g.font_px;
      r.line_top = g.line_top;
      r.font_px = g.font_px;
      runs.push_back(r);
    } else if (g.x0 - gs[i - 1].x1 > 0.2f * g.font_px) {
      runs.back().text += ' ';
    }
    Run& r = runs.back();
    r.last = i;
    r.x1 = std::max(r.x1, g.x1);
    r.cut_px = std::max(r.cut_px, g.cut_px);
    append_utf8(r.text, g.codepoint);
    g.run = static_cast<int>(runs.size()) - 1;
  }
  return runs;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

FitProblem problem(FitProblemKind kind, const Run& r, const std::string& window, float excess) {
  return FitProblem{kind, r.text, window, r.x0, r.y0, r.x1, r.y1, excess};
}

void check_list(const ImDrawList& list, const std::string& window, const GlyphIndex& ix, ImTextureID font_tex,
                std::vector<FitProblem>& out) {
  std::vector<Drawn> gs = glyphs_of(list, ix, font_tex);
  if (gs.empty()) return;
  const std::vector<Run> runs = runs_of(gs);
  for (const Run& r : runs) {
    if (r.cut_px > 0) out.push_back(problem(FitProblemKind::kCut, r, window, r.cut_px));
  }
  // Word wrap inside a number: a line ending in "3." or "3," and the next one, under it, starting
  // with a digit.
  for (std::size_t k = 1; k < runs.size(); ++k) {
    const Run& a = runs[k - 1];
    const Run& b = runs[k];
    const float dy = b.line_top - a.line_top;
    const std::string& t = a.text;
    if (t.size() >= 2 && (t.back() == '.' || t.back() == ',') && is_digit(t[t.size() - 2]) && !b.text.empty() &&
        is_digit(b.text.front()) && dy > 0.8f * a.font_px && dy < 1.6f * a.font_px && b.x0 <= a.x0 + 2) {
      Run both = a;
      both.text = a.text + "⏎" + b.text;
      both.y1 = b.y1;
      out.push_back(problem(FitProblemKind::kNumberWrap, both, window, 0));
    }
  }
  // Labels drawn over each other: glyphs of different runs sharing much of their boxes.
  std::vector<std::size_t> order(gs.size());
  for (std::size_t i = 0; i < gs.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return gs[a].y0 < gs[b].y0; });
  std::vector<std::pair<int, int>> reported;
  for (std::size_t oi = 0; oi < order.size(); ++oi) {
    const Drawn& a = gs[order[oi]];
    for (std::size_t oj = oi + 1; oj < order.size() && gs[order[oj]].y0 < a.y1; ++oj) {
      const Drawn& b = gs[order[oj]];
      if (a.run == b.run) continue;
      const float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
      const float h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
      if (w <= 0 || h <= 0) continue;
      const float smaller = std::min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0));
      if (w * h < kOverlapShare * smaller) continue;
      const std::pair<int, int> key(std::min(a.run, b.run), std::max(a.run, b.run));
      if (std::find(reported.begin(), reported.end(), key) != reported.end()) continue;
      reported.push_back(key);
      Run both = runs[static_cast<std::size_t>(key.first)];
      const Run& other = runs[static_cast<std::size_t>(key.second)];
      both.text += " ⟷ " + other.text;
      both.x0 = std::min(both.x0, other.x0);
      both.y0 = std::min(both.y0, other.y0);
      both.x1 = std::max(both.x1, other.x1);
      both.y1 = std::max(both.y1, other.y1);
      out.push_back(problem(FitProblemKind::kOverlap, both, window, 0));
    }
  }
}

// Tabs squeezed below their label's width (ImGui then ends the label with "...").
void check_tab_bars(const ImGuiContext& g, std::vector<FitProblem>& out) {
  for (int i = 0; i < g.TabBars.GetMapSize(); ++i) {
    const ImGuiTabBar* bar = const_cast<ImGuiContext&>(g).TabBars.TryGetMapData(i);
    if (!bar || bar->CurrFrameVisible != g.FrameCount) continue;
    for (const ImGuiTabItem& tab : bar->Tabs) {
      if (tab.LastFrameVisible != g.FrameCount || tab.Width + kEdgeTolPx >= tab.ContentWidth) continue;
      const char* name = bar->GetTabName(&tab);
      std::string label = name ? name : "";
      if (auto hidden = label.find("##"); hidden != std::string::npos) label.resize(hidden);
      const float x0 = bar->BarRect.Min.x + tab.Offset;
      out.push_back(FitProblem{FitProblemKind::kTabSqueezed, label, "tab bar", x0, bar->BarRect.Min.y, x0 + tab.Width,
                               bar->BarRect.Max.y, tab.ContentWidth - tab.Width});
    }
  }
}

// Table cells and headers wider than their column: the text is cut at the column's edge (for a
// header, ImGui ends it with "..."). This also finds a label cut exactly between two glyphs,
// which leaves no glyph crossing the edge.
void check_tables(ImGuiContext& g, std::vector<FitProblem>& out) {
  for (int i = 0; i < g.Tables.GetMapSize(); ++i) {
    const ImGuiTable* t = g.Tables.TryGetMapData(i);
    if (!t || t->LastFrameActive != g.FrameCount) continue;
    const std::string window = t->OuterWindow ? t->OuterWindow->Name : "table";
    for (int c = 0; c < t->ColumnsCount; ++c) {
      const ImGuiTableColumn& col = t->Columns[c];
      if (!col.IsEnabled || !col.IsVisibleX) continue;
      std::string name = col.NameOffset >= 0 ? std::string(t->ColumnsNames.Buf.Data + col.NameOffset) : "";
      const float right = col.ClipRect.Max.x;
      const float cells = std::max(col.ContentMaxXFrozen, col.ContentMaxXUnfrozen) - right;
      if (cells > kEdgeTolPx) {
        out.push_back(FitProblem{FitProblemKind::kCut, "a cell of column '" + name + "'", window, col.MinX,
                                 col.ClipRect.Min.y, right, col.ClipRect.Max.y, cells});
      }
      const float header = col.ContentMaxXHeadersIdeal - right;
      if (header > kEdgeTolPx && !name.empty()) {
        out.push_back(FitProblem{FitProblemKind::kCut, "header '" + name + "'", window, col.MinX, col.ClipRect.Min.y,
                                 right, col.ClipRect.Max.y, header});
      }
    }
  }
}

// Windows whose items reach past their right edge (no horizontal scrollbar to reach them), or
// past their bottom when they cannot scroll.
void check_windows(const ImGuiContext& g, std::vector<FitProblem>& out) {
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->Active || w->Hidden || w->LastFrameActive != g.FrameCount) continue;
    if (w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_AlwaysAutoResize)) continue;
    if (w->AutoFitFramesX > 0 || w->AutoFitFramesY > 0 || w->Appearing) continue;
    const ImRect clip = w->InnerClipRect;
    const float over_x = w->DC.CursorMaxPos.x - clip.Max.x;
    if (!w->ScrollbarX && over_x > kEdgeTolPx) {
      out.push_back(FitProblem{FitProblemKind::kOverflow, "items reach past the right edge", w->Name, clip.Min.x,
                               clip.Min.y, w->DC.CursorMaxPos.x, clip.Max.y, over_x});
    }
    const float over_y = w->DC.CursorMaxPos.y - clip.Max.y;
    if ((w->Flags & ImGuiWindowFlags_NoScrollbar) && over_y > kEdgeTolPx) {
      out.push_back(FitProblem{FitProblemKind::kOverflow, "items reach past the bottom edge", w->Name, clip.Min.x,
                               clip.Min.y, clip.Max.x, w->DC.CursorMaxPos.y, over_y});
    }
  }
}

std::string window_of(const ImGuiContext& g, const ImDrawList* list) {
  for (const ImGuiWindow* w : g.Windows) {
    if (w->DrawList == list) return w->Name;
  }
  return "foreground";
}

}  // namespace

const char* to_string(FitProblemKind k) {
  switch (k) {
    case FitProblemKind::kCut:
      return "cut";
    case FitProblemKind::kTabSqueezed:
      return "tab squeezed";
    case FitProblemKind::kOverflow:
      return "overflow";
    case FitProblemKind::kOverlap:
      return "overlap";
    case FitProblemKind::kNumberWrap:
      return "number wrapped";
  }
  return "?";
}

std::vector<FitProblem> check_text_fit() {
  std::vector<FitProblem> out;
  ImGuiContext* ctx = ImGui::GetCurrentContext();
  ImDrawData* data = ImGui::GetDrawData();
  if (!ctx || !data) return out;
  const ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
  const GlyphIndex ix = index_atlas(atlas);
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    check_list(*list, window_of(*ctx, list), ix, atlas.TexID, out);
  }
  check_tab_bars(*ctx, out);
  check_tables(*ctx, out);
  check_windows(*ctx, out);
  return out;
}

bool layout_settling() {
  ImGuiContext* ctx = ImGui::GetCurrentContext();
  if (!ctx) return false;
  ImGuiContext& g = *ctx;
  for (int i = 0; i < g.Tables.GetMapSize(); ++i) {
    const ImGuiTable* t = g.Tables.TryGetMapData(i);
    // A table whose host skips its items (a clipped child) counts its auto-fit frames down only
    // once it is drawn again: it is not on screen, so it does not hold a picture.
    if (!t || t->LastFrameActive != g.FrameCount || t->HostSkipItems) continue;
    if (t->IsInitializing) return true;
    for (int c = 0; c < t->ColumnsCount; ++c) {
      if (t->Columns[c].IsEnabled && t->Columns[c].AutoFitQueue != 0) return true;
    }
  }
  // A window on its first frame. Not a window fitting itself: one sized 0 on an axis every frame
  // (the class hand-in bar) fits itself on every frame and would hold every picture.
  for (const ImGuiWindow* w : g.Windows) {
    if (w->Active && !w->Hidden && w->LastFrameActive == g.FrameCount && w->Appearing) return true;
  }
  return false;
}

std::string describe(const FitProblem& p) {
  char where[96];
  std::snprintf(where, sizeof where, " at (%.0f,%.0f)-(%.0f,%.0f)", p.x0, p.y0, p.x1, p.y1);
  std::string s = std::string(to_string(p.kind)) + ": '" + p.text + "' in " + p.window + where;
  if (p.excess_px > 0) {
    char ex[48];
    std::snprintf(ex, sizeof ex, ", %.0f px too long", p.excess_px);
    s += ex;
  }
  return s;
}

std::vector<KnownFitProblem> parse_known_fit_problems(const std::string& text) {
  std::vector<KnownFitProblem> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    KnownFitProblem k;
    k.line = line;
    const auto a = line.find('|');
    const auto b = a == std::string::npos ? std::string::npos : line.find('|', a + 1);
    k.kind = line.substr(0, a);
    if (a != std::string::npos)
      k.window_part = line.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    if (b != std::string::npos) k.text_start = line.substr(b + 1);
    out.push_back(std::move(k));
  }
  return out;
}

const KnownFitProblem* find_known(const std::vector<KnownFitProblem>& known, const FitProblem& p) {
  for (const auto& k : known) {
    if (k.kind == to_string(p.kind) && p.window.find(k.window_part) != std::string::npos &&
        p.text.rfind(k.text_start, 0) == 0) {
      return &k;
    }
  }
  return nullptr;
}

nlohmann::json to_json(const std::vector<FitProblem>& problems) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : problems) {
    a.push_back({{"kind", to_string(p.kind)},
                 {"text", p.text},
                 {"window", p.window},
                 {"rect", {p.x0, p.y0, p.x1, p.y1}},
                 {"excess_px", p.excess_px},
                 {"what", describe(p)}});
  }
  return a;
}

}  // namespace tycoon::ui
