// The deploy form's right-hand side: the memory fit (ui/deploy_memory_fit.cpp), then a what-if
// preview of the form's recipe at the segment's current load from the serving simulator, side by
// side with the current recipe when editing, with the hour's economics from sim/game.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "sim/game/fleet.h"
#include "sim/game/hourly_economics.h"
#include "sim/game/load_share.h"
#include "sim/game/serving_window.h"
#include "sim/game/slo.h"
#include "ui/deploy_form.h"
#include "ui/deploy_memory_fit.h"
#include "ui/format.h"
#include "ui/theme.h"
#include "ui/what_if.h"
#include "ui/widgets.h"

namespace tycoon::ui {

void draw_fit_and_preview(const GameView& game, ViewState& view, Previews& previews) {
  const auto& f = view.deploy;
  const auto* seg = form_segment(game, view);
  if (!seg) return;
  WhatIf w = form_what_if(game, view);
  if (!draw_memory_fit(game, view, *seg, w)) return;

  // What-if: this recipe at the segment's current load (its share of it when editing).
  ImGui::Spacing();
  theme::heading("What-if preview");
  if (game::serves_nothing(w.replicas, w.decode)) {
    muted_wrapped(
        "This deployment has no replicas: it serves nothing, whatever its recipe. Scale it up to see it "
        "serve.");
    return;
  }
  // Its share of the segment's load (game::load_share): a new deployment joins those serving.
  game::DeploymentState probe;
  probe.model = seg->model;
  probe.segment = seg->id;
  probe.chip = w.chip;
  probe.recipe = w.recipe;
  probe.replicas = w.replicas;
  probe.decode = w.decode;
  const game::DeploymentState* edited = f.editing ? game.state.company.find_deployment(*f.editing) : nullptr;
  const double rate = game::deployment_rate_now(game.scenario, game.catalog, game.state, edited ? *edited : probe);
  const std::uint64_t seed = game.state.seed;
  auto result = previews.get([&] { return open_loop_job(previews, game.scenario, game.catalog, w, rate, seed); });
  if (w.decode) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "At %s offered (%s now), %d prefill + %d decode replica(s), KV over %s:", fmt_req_per_s(rate).c_str(),
                  seg->name.c_str(), w.replicas, w.decode->replicas,
                  std::string(serving::kKvLinkNames[static_cast<std::size_t>(w.decode->link)]).c_str());
    muted_wrapped(buf);
  } else {
    ImGui::TextDisabled("At %s offered (%s now), %d replica(s):", fmt_req_per_s(rate).c_str(), seg->name.c_str(),
                        w.replicas);
  }
  if (!result) {
    ImGui::TextDisabled("computing…");
    return;
  }
  if (!result->summary) {
    error_box("##preview_error", "The simulator refused: " + result->error);
    return;
  }
  const auto& sm = *result->summary;
  std::shared_ptr<const PreviewResult> current;
  // Per-GPU results scale to all of a deployment's GPUs (the preview simulates a few replicas):
  // this recipe's pools, and the running deployment's own for the "now" column.
  std::vector<game::PoolGpus> current_pools;
  if (f.editing) {
    if (const auto* d = game.state.company.find_deployment(*f.editing)) {
      const WhatIf cur = what_if_now(game.state, *d);  // as it runs now: the replicas with GPUs
      current = previews.get([&] { return open_loop_job(previews, game.scenario, game.catalog, cur, rate, seed); });
      current_pools = d->pools();
    }
  }
  const auto* base = current && current->summary ? &*current->summary : nullptr;
  const auto pools = game::pools_of(f.chip, w.replicas, w.recipe, w.decode);
  const auto money = game::hourly_economics(game.state, seg->model, sm, pools);
  std::optional<game::HourlyEconomics> base_money;
  if (base) base_money = game::hourly_economics(game.state, seg->model, *base, current_pools);

  if (ImGui::BeginTable("preview", base ? 3 : 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);  // as wide as the longest name
    ImGui::TableSetupColumn(base ? "this recipe" : "", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    if (base) ImGui::TableSetupColumn("now", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    if (base) ImGui::TableHeadersRow();
    auto row = [&](const char* name, const std::string& v, const std::string& b, ImU32 color = theme::kText,
                   const char* tooltip = nullptr) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", name);
      wrapped_tooltip(tooltip);
      ImGui::TableNextColumn();
      theme::text_colored(color, v);
      if (base) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", b.c_str());
      }
    };
    const double slo = game::slo_attainment(sm, seg->slo);
    row("TTFT p90", fmt_seconds(sm.ttft_s.p90), base ? fmt_seconds(base->ttft_s.p90) : "",
        game::p90_over_bound(sm.ttft_s.p90, seg->slo.ttft_s) ? theme::kCost : theme::kText);
    row("Time per token p90", fmt_seconds(sm.tpot_s.p90), base ? fmt_seconds(base->tpot_s.p90) : "",
        game::p90_over_bound(sm.tpot_s.p90, seg->slo.tpot_s) ? theme::kCost : theme::kText);
    row("SLO met (est.)", fmt_pct(slo), base ? fmt_pct(game::slo_attainment(*base, seg->slo)) : "",
        slo_color(slo, game.scenario));
    row("Output per GPU", fmt_tok_per_s(sm.output_tok_per_s_per_gpu),
        base ? fmt_tok_per_s(base->output_tok_per_s_per_gpu) : "");
    row("P90 speed per user", fmt_count(sm.p90_interactivity_tok_per_s_per_user) + " tok/s",
        base ? fmt_count(base->p90_interactivity_tok_per_s_per_user) + " tok/s" : "");
    row("Mean batch", fmt_count(sm.mean_batch_size), base ? fmt_count(base->mean_batch_size) : "");
    row("Failed requests", fmt_pct(sm.failed_share()), base ? fmt_pct(base->failed_share()) : "",
        sm.requests_failed > 0 ? theme::kWarn : theme::kText,
        "Requests turned away because the queue was full, or that waited past their timeout.");
    row("Revenue per hour", fmt_usd(money.revenue_usd), base_money ? fmt_usd(base_money->revenue_usd) : "");
    row("GPU rent per hour", fmt_usd(money.gpu_cost_usd), base_money ? fmt_usd(base_money->gpu_cost_usd) : "");
    const auto margin = money.gross_margin();
    const auto base_margin = base_money ? base_money->gross_margin() : std::nullopt;
    row("Gross margin", margin ? fmt_pct(*margin) : "—", base_margin ? fmt_pct(*base_margin) : "",
        money_color(game::margin_standing(margin), theme::kRevenue));
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Simulated %s of traffic in %.0f ms", fmt_seconds(sm.simulated_time_s).c_str(), result->wall_ms);
  ImGui::SameLine();
  theme::provenance_badge(sm.provenance);
  tag(view.tags, "deploy.preview");
}

}  // namespace tycoon::ui
