// Pareto chart: output tokens per second per GPU against P90 tokens per second per user over a
// concurrency sweep, for the current deployment and alternative recipes (as in InferenceX).
#include <algorithm>
#include <string>

#include "sim/game/recipe_alternatives.h"
#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/what_if.h"
#include "ui/widgets.h"

namespace tycoon::ui {

void draw_pareto_panel(const GameView& game, ViewState& view, CommandQueue& /*out*/, Previews& previews) {
  const auto& s = game.state;
  const auto* d = deployment_picker(game, view, "pareto");
  if (!d) {
    muted_wrapped("Deploy a model to chart its throughput against interactivity.");
    return;
  }
  heading_with_help("Throughput per GPU against speed per user", Concept::kPareto);
  muted_wrapped("Each line sweeps the number of concurrent users from " +
                std::to_string(game::kParetoConcurrencies.front()) + " to " +
                std::to_string(game::kParetoConcurrencies.back()) +
                " on one replica with this segment's traffic. Up is cheaper tokens (more per GPU); right is faster "
                "tokens for each user.");

  const auto alts = game::recipe_alternatives(game.catalog, game.scenario, s, *d);
  analysis::Chart chart;
  chart.x_label = "P90 interactivity (tok/s/user)";
  chart.y_label = "output per GPU (tok/s)";
  chart.provenance_key = false;
  // Hover text: what the point is, then both coordinates in their units.
  auto hover = [](const std::string& what, double x, double y) {
    return what + "\nP90 interactivity: " + chart::format_value(chart::Unit::kTokPerSPerUser, x, false) +
           "\noutput per GPU: " + chart::format_value(chart::Unit::kTokPerS, y, false);
  };
  int done = 0, total = 0;
  perf::Provenance provenance = perf::Provenance::kMeasured;
  for (std::size_t a = 0; a < alts.size(); ++a) {
    analysis::ChartSeries series;
    series.name = alts[a].label;
    series.frontier_group = 0;  // one front over all recipes
    const WhatIf w = what_if_of(s, alts[a].deployment);
    for (int c : game::kParetoConcurrencies) {
      ++total;
      auto r = previews.get([&] { return closed_loop_job(previews, game.scenario, game.catalog, w, c, s.seed); });
      if (!r) continue;
      ++done;
      if (!r->summary) continue;
      provenance = perf::weaker(provenance, r->summary->provenance);
      analysis::ChartPoint p;
      p.x = r->summary->p90_interactivity_tok_per_s_per_user;
      p.y = r->summary->output_tok_per_s_per_gpu;
      p.tooltip =
          hover("concurrency " + std::to_string(c) + " · TTFT p90 " + fmt_seconds(r->summary->ttft_s.p90), p.x, p.y);
      series.points.push_back(std::move(p));
    }
    chart.series.push_back(std::move(series));
  }
  // Where the deployment actually ran last hour.
  if (const auto* last = last_hour_of(s, d->id);
      last && last->gpus_serving > 0 && last->p90_interactivity_tok_per_s() > 0) {
    analysis::ChartHighlight star;
    star.name = "last hour";
    star.point.x = last->p90_interactivity_tok_per_s();
    star.point.y = last->output_tok_per_s_per_gpu;
    star.point.tooltip = hover("the game's last hour", star.point.x, star.point.y);
    star.color_rgba = chart::model_color(theme::kWarn);
    chart.highlight = std::move(star);
  }
  const float h = std::max(260.0f, ImGui::GetContentRegionAvail().y - 60);
  chart::plot("##pareto", chart, ImVec2(0, h));
  tag(view.tags, "pareto.chart");
  if (done < total) {
    ImGui::TextDisabled("Simulating: %d of %d points…", done, total);
  } else {
    ImGui::TextDisabled("%d points; the dashed line is the Pareto front over all recipes.", total);
  }
  ImGui::SameLine();
  theme::provenance_badge(provenance);
}

}  // namespace tycoon::ui
