// Profiler: where a deployment's GPU time goes, by op class, and whether each op is bound by
// memory bandwidth or by compute — the first step of every optimization.
#include <algorithm>
#include <cmath>

#include "sim/game/fleet.h"
#include "sim/game/load_share.h"
#include "sim/game/profile_steps.h"
#include "sim/game/serving_window.h"
#include "sim/perf/bottleneck.h"
#include "sim/perf/iteration_cost.h"
#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/what_if.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

// One color per op class, the same in the bars, the table and the run's split.
ImU32 op_color(std::size_t i) {
  constexpr ImU32 kOpColors[perf::kNumOpClasses] = {
      IM_COL32(86, 156, 255, 255),  IM_COL32(46, 196, 182, 255),  IM_COL32(255, 190, 80, 255),
      IM_COL32(150, 200, 90, 255),  IM_COL32(120, 120, 235, 255), IM_COL32(239, 99, 99, 255),
      IM_COL32(240, 150, 90, 255),  IM_COL32(150, 160, 180, 255), IM_COL32(200, 130, 200, 255),
      IM_COL32(90, 205, 120, 255),  IM_COL32(230, 120, 170, 255), IM_COL32(178, 128, 255, 255),
      IM_COL32(110, 110, 125, 255), IM_COL32(200, 200, 120, 255)};
  return kOpColors[i % perf::kNumOpClasses];
}

std::string op_label(perf::OpClass c) {
  std::string s(perf::to_string(c));
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

ImU32 op_bound_color(perf::OpBound b) {
  switch (b) {
    case perf::OpBound::kOverhead:
      return theme::kMuted;
    case perf::OpBound::kMemory:
      return theme::kCash;
    case perf::OpBound::kCompute:
      return theme::kWarn;
  }
  return theme::kMuted;
}

}  // namespace

void draw_profiler_panel(const GameView& game, ViewState& view, CommandQueue& /*out*/, Previews& previews) {
  const auto& s = game.state;
  const auto* d = deployment_picker(game, view, "profiler");
  if (!d) {
    muted_wrapped("Deploy a model to profile it.");
    return;
  }
  const WhatIf w = what_if_now(s, *d);
  if (game::serves_nothing(w.replicas, w.decode)) {
    muted_wrapped("This deployment has no replicas: it serves nothing. Scale it up to profile it.");
    return;
  }
  std::string error;
  auto plan = plan_of(previews, game.scenario, game.catalog, w, &error);
  if (!plan) {
    error_box("##prof_err", error);
    return;
  }
  const perf::Deployment* dep = &plan->config.deployment;
  const perf::CalibrationProfile* cal = &plan->calibration;

  // The run at the current load, for the batch size and the time split over the whole run.
  const double rate = game::deployment_rate_now(game.scenario, game.catalog, s, *d);
  auto result = previews.get([&] { return open_loop_job(previews, game.scenario, game.catalog, w, rate, s.seed); });
  const auto* sm = result && result->summary ? &*result->summary : nullptr;

  // One representative decode step and one prefill chunk (the game's choice, game::profile_steps).
  const auto steps = game::profile_steps(game.scenario, *d, *dep, *cal,
                                         sm ? std::optional<double>(sm->mean_batch_size) : std::nullopt);
  const auto& decode = steps.decode;
  const auto& prefill = steps.prefill;

  heading_with_help("Where the time goes", Concept::kMemoryBoundDecode);
  ImGui::TextDisabled("%s · decode step of %d sequences at %lld tokens of context; prefill of %lld prompt tokens",
                      game::describe(d->recipe).c_str(), steps.decode_batch,
                      static_cast<long long>(steps.decode_context_tokens),
                      static_cast<long long>(steps.prefill_tokens));
  ImGui::SameLine();
  theme::provenance_badge(perf::weaker(decode.provenance, prefill.provenance));

  // Stacked bars: decode step vs prefill chunk, by op class (ms).
  std::vector<chart::BarLayer> layers;
  for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) {
    const double dt = decode.ops[i].time_s, pt = prefill.ops[i].time_s;
    if (dt <= 0 && pt <= 0) continue;
    layers.push_back({op_label(static_cast<perf::OpClass>(i)), {dt, pt}, op_color(i)});
  }
  std::vector<std::string> cats = {"decode " + fmt_seconds(decode.total_s), "prefill " + fmt_seconds(prefill.total_s)};
  const float avail = ImGui::GetContentRegionAvail().x;
  chart::stacked_bars("##opbars", cats, layers, {"time per engine step", chart::Unit::kSeconds},
                      ImVec2(avail * 0.34f, 300), false, false);
  ImGui::SameLine();

  // The table: per op class, time in each step, and what bounds it.
  ImGui::BeginChild("##optable", ImVec2(0, 300), false);
  if (ImGui::BeginTable("ops", 5,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn("Op class", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn("Decode", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableSetupColumn("bound by", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableSetupColumn("Prefill", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableSetupColumn("bound by", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableHeadersRow();
    // The model's verdict (perf::bound_of), in its color.
    auto bound = [](const perf::OpCost& c) {
      const auto b = perf::bound_of(c);
      return std::pair<const char*, ImU32>{perf::kOpBoundNames[static_cast<std::size_t>(b)].data(), op_bound_color(b)};
    };
    for (std::size_t i = 0; i < perf::kNumOpClasses; ++i) {
      const auto& dc = decode.ops[i];
      const auto& pc = prefill.ops[i];
      if (dc.time_s <= 0 && pc.time_s <= 0) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      theme::text_colored(op_color(i), "■");
      ImGui::SameLine(0, 6);
      ImGui::TextUnformatted(op_label(static_cast<perf::OpClass>(i)).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s", fmt_pct(dc.time_s / std::max(decode.total_s, 1e-12), 0).c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s · %.3g GFLOP · %s moved · intensity %.1f FLOP/byte", fmt_seconds(dc.time_s).c_str(),
                          dc.flop / 1e9, fmt_bytes(dc.bytes).c_str(), dc.bytes > 0 ? dc.flop / dc.bytes : 0.0);
      }
      ImGui::TableNextColumn();
      auto [db, dcol] = bound(dc);
      theme::text_colored(dcol, db);
      ImGui::TableNextColumn();
      ImGui::Text("%s", fmt_pct(pc.time_s / std::max(prefill.total_s, 1e-12), 0).c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s · %.3g GFLOP · %s moved · intensity %.1f FLOP/byte", fmt_seconds(pc.time_s).c_str(),
                          pc.flop / 1e9, fmt_bytes(pc.bytes).c_str(), pc.bytes > 0 ? pc.flop / pc.bytes : 0.0);
      }
      ImGui::TableNextColumn();
      auto [pb, pcol] = bound(pc);
      theme::text_colored(pcol, pb);
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();

  // The whole run at the current load.
  ImGui::Spacing();
  theme::heading("GPU time over a simulated stretch at this hour's load");
  if (!sm) {
    if (result && !result->summary) {
      error_box("##prof_sim_err", result->error);
    } else {
      ImGui::TextDisabled("simulating…");
    }
    return;
  }
  double total = 0;
  std::vector<chart::Segment> segs;
  for (const auto& sh : perf::time_shares(sm->time_by_op_s)) {
    total += sh.time_s;
    segs.push_back({op_label(sh.op), sh.time_s, op_color(static_cast<std::size_t>(sh.op))});
  }
  std::sort(segs.begin(), segs.end(), [](const auto& a, const auto& b) { return a.value > b.value; });
  if (segs.size() > 6) segs.resize(6);  // the legend shows the biggest; the bar shows their share
  chart::split_bar("##runbar", segs, total, chart::Unit::kSeconds, ImVec2(0, 22));
  ImGui::TextDisabled("%s of GPU time over %s simulated, %lld engine steps, mean batch %s.", fmt_seconds(total).c_str(),
                      fmt_seconds(sm->simulated_time_s).c_str(), static_cast<long long>(sm->num_iterations),
                      fmt_count(sm->mean_batch_size).c_str());
  muted_wrapped(perf::advice(perf::decode_bottleneck(decode)));
}

}  // namespace tycoon::ui
