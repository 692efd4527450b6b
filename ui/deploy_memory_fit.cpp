// The deploy form's memory-fit view: how the form's recipe fills one GPU's memory (weights,
// activations, runtime reserve, KV cache), whether it fits, and how many requests its KV cache
// holds; for a disaggregated deployment, the decode pool's fit too.
#include "ui/deploy_memory_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "sim/game/deploy_checks.h"
#include "ui/chart.h"
#include "ui/format.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

bool draw_memory_fit(const GameView& game, ViewState& view, const game::SegmentSpec& seg, const WhatIf& w) {
  const auto& f = view.deploy;
  theme::heading(w.decode ? "Memory per GPU (prefill pool)" : "Memory per GPU");
  std::string error;
  auto plan = memory_plan_for(game.scenario, game.catalog, w, &error);
  if (!plan) {
    error_box("##fit_error", "Cannot run: " + error);
    return false;
  }
  const double unusable = plan->hbm_bytes - plan->usable_bytes;
  chart::Segment segs[] = {{"weights", plan->weight_bytes, theme::series_color(0)},
                           {"activations", plan->activation_bytes, theme::series_color(3)},
                           {"runtime", plan->runtime_reserve_bytes, theme::series_color(7)},
                           {"KV cache", std::max(0.0, plan->kv_capacity_bytes), theme::kRevenue},
                           {"reserved", unusable, IM_COL32(70, 76, 92, 255)}};
  chart::split_bar("##membar", segs, plan->hbm_bytes, chart::Unit::kBytes, ImVec2(0, 20));
  // A request's context when it ends, as this segment's traffic sends it (history resent included),
  // drawn once per segment and seed (the form is drawn every frame).
  static std::map<std::pair<std::string, std::uint64_t>, std::int64_t> contexts;
  auto [at, added] = contexts.try_emplace({game.scenario.id + "/" + seg.id, game.state.seed}, 0);
  if (added) {
    at->second = static_cast<std::int64_t>(std::llround(serving::mean_request_context_tokens(
        seg.workload, game.catalog.model(seg.model).max_context_tokens, game.state.seed)));
  }
  const std::int64_t context = std::max<std::int64_t>(1, at->second);
  if (plan->fits) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "Fits. KV cache holds %s tokens of context per replica: about %lld requests of %lld tokens at once "
                  "(batch limit %d).",
                  fmt_count(static_cast<double>(plan->kv_capacity_tokens)).c_str(),
                  static_cast<long long>(plan->max_sequences(context)), static_cast<long long>(context),
                  f.recipe.max_num_seqs);
    theme::text_colored(theme::kRevenue, "✔");
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(buf);
    ImGui::PopTextWrapPos();
    tag(view.tags, "deploy.fit.ok");
  } else {
    error_box("##fit", "Does not fit: " + game::memory_shortfall(*plan));
    tag(view.tags, "deploy.fit.fail");
    return false;
  }
  if (w.decode) {
    // The decode pool's own fit: it holds every running request's KV cache.
    WhatIf dw = w;
    dw.chip = w.decode->chip;
    dw.recipe = w.decode->recipe;
    dw.decode.reset();
    auto dplan = memory_plan_for(game.scenario, game.catalog, dw, &error);
    if (!dplan || !dplan->fits) {
      error_box("##decode_fit", "Decode pool: " + (dplan ? dplan->reason : error));
      tag(view.tags, "deploy.fit.fail");
      return false;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "Decode pool on %s: KV cache holds %s tokens per replica (%s).",
                  chip_name(game.catalog, dw.chip).c_str(),
                  fmt_count(static_cast<double>(dplan->kv_capacity_tokens)).c_str(), game::describe(dw.recipe).c_str());
    theme::text_colored(theme::kRevenue, "✔");
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(buf);
    ImGui::PopTextWrapPos();
  }
  return true;
}

}  // namespace tycoon::ui
