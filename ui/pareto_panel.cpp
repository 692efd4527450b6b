// Pareto chart: output tokens per second per GPU against P90 tokens per second per user over a
// concurrency sweep, for the current deployment and alternative recipes (as in InferenceX).
#include <algorithm>
#include <string>

#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/what_if.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

constexpr int kConcurrencies[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

struct Alternative {
  std::string name;
  WhatIf what_if;
};

// The current recipe and a few single-lever changes of it that run and fit.
std::vector<Alternative> alternatives(const GameView& game, const game::DeploymentState& d) {
  std::vector<Alternative> out;
  WhatIf base = what_if_of(d);
  base.replicas = 1;
  out.push_back({"current: " + game::describe(d.recipe), base});
  const auto* acc = game.catalog.find_accelerator(d.chip);
  const auto* engine = game.catalog.find_engine(d.recipe.engine);
  auto add = [&](std::string name, WhatIf w) {
    std::string error;
    auto plan = memory_plan_for(game.scenario, game.catalog, w, &error);
    if (plan && plan->fits) out.push_back({std::move(name), std::move(w)});
  };
  if (acc) {
    WhatIf w = base;
    if (d.recipe.precision == Precision::kBf16 && acc->supports(Precision::kFp8)) {
      w.recipe.precision = Precision::kFp8;
      add("fp8 weights", w);
    } else if (d.recipe.precision == Precision::kFp8 && acc->supports(Precision::kFp4)) {
      w.recipe.precision = Precision::kFp4;
      add("fp4 weights", w);
    } else if (d.recipe.precision != Precision::kBf16) {
      w.recipe.precision = Precision::kBf16;
      add("bf16 weights", w);
    }
  }
  if (engine && engine->supports_spec_decode) {
    WhatIf w = base;
    w.recipe.spec_draft_tokens = d.recipe.spec_draft_tokens > 0 ? 0 : 3;
    add(d.recipe.spec_draft_tokens > 0 ? "no speculative decoding" : "speculative decoding, 3 drafts", w);
    // With drafts on, another draft count too: how many drafts pay is a question of the traffic.
    if (d.recipe.spec_draft_tokens > 0) {
      w.recipe.spec_draft_tokens = d.recipe.spec_draft_tokens == 3 ? 7 : 3;
      add("speculative decoding, " + std::to_string(w.recipe.spec_draft_tokens) + " drafts", w);
    }
  }
  if (acc && d.recipe.tensor_parallel * 2 <= acc->scale_up.domain_size) {
    WhatIf w = base;
    w.recipe.tensor_parallel *= 2;
    add("TP" + std::to_string(w.recipe.tensor_parallel), w);
  }
  for (const auto& o : game.state.world.market.offers) {
    if (o.chip == d.chip) continue;
    const auto* model = game.catalog.find_model(d.model);
    const auto* other = game.catalog.find_accelerator(o.chip);
    if (!model || !other) continue;
    WhatIf w = base;
    w.chip = o.chip;
    w.speedup = 1.0;
    w.recipe = game::default_recipe(game.catalog, *model, *other);
    add("on " + other->name + " (" + game::describe(w.recipe) + ")", w);
    break;
  }
  return out;
}

}  // namespace

void draw_pareto_panel(const GameView& game, ViewState& view, CommandQueue& /*out*/, Previews& previews) {
  const auto& s = game.state;
  const auto* d = deployment_picker(game, view, "pareto");
  if (!d) {
    muted_wrapped("Deploy a model to chart its throughput against interactivity.");
    return;
  }
  heading_with_help("Throughput per GPU against speed per user", Concept::kPareto);
  muted_wrapped(
      "Each line sweeps the number of concurrent users from 1 to 256 on one replica with this segment's "
      "traffic. Up is cheaper tokens (more per GPU); right is faster tokens for each user.");

  auto alts = alternatives(game, *d);
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
    series.name = alts[a].name;
    series.frontier_group = 0;  // one front over all recipes
    for (int c : kConcurrencies) {
      ++total;
      const WhatIf& w = alts[a].what_if;
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
  // Where the deployment actually ran last hour (speed per user ≈ 1 / P90 time per token).
  if (const auto* last = last_hour_of(s, d->id); last && last->gpus_serving > 0 && last->tpot_p90_s > 0) {
    analysis::ChartHighlight star;
    star.name = "last hour";
    star.point.x = 1.0 / last->tpot_p90_s;
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
