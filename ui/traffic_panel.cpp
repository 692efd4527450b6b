// Traffic: request rates by customer segment and workload shape, and inside each deployment the
// queue, batch, KV-cache utilization and prefix-cache hit rate at the current load.
#include <algorithm>
#include <map>

#include "sim/game/fleet.h"
#include "sim/game/load_share.h"
#include "sim/game/serving_window.h"
#include "sim/game/slo.h"
#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/what_if.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

void gauge(const char* label, double share, const std::string& text, ImU32 color, Concept topic) {
  ImGui::TextUnformatted(label);
  help_marker(topic);
  ImGui::SameLine(190);
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, theme::vec4(color));
  ImGui::ProgressBar(static_cast<float>(std::clamp(share, 0.0, 1.0)), ImVec2(220, 0), text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace

void draw_traffic_panel(const GameView& game, ViewState& view, CommandQueue& /*out*/, Previews& previews) {
  const auto& s = game.state;
  theme::heading("Customer segments");
  if (ImGui::BeginTable("segments", 7,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("Segment", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("Workload shape", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("Offered now", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("Event", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("SLO targets", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("SLO met", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("Reputation", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < game.scenario.segments.size() && i < s.world.segments.size(); ++i) {
      const auto& seg = game.scenario.segments[i];
      const auto& st = s.world.segments[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(seg.name.c_str());
      ImGui::TextDisabled("%s", model_name(game.catalog, seg.model).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s", std::string(serving::kWorkloadNames[static_cast<std::size_t>(seg.workload.kind)]).c_str());
      const bool multi_turn = traffic::resends_history(seg.workload.kind);
      ImGui::TextDisabled(
          multi_turn ? "%lld new in per turn (+ the history resent) → %lld out" : "%lld in → %lld out tokens",
          static_cast<long long>(seg.workload.input_tokens), static_cast<long long>(seg.workload.output_tokens));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.last_offered_requests_per_s > 0 ? fmt_req_per_s(st.last_offered_requests_per_s).c_str()
                                                                : "—");
      ImGui::TableNextColumn();
      if (st.demand_multiplier != 1.0) {
        theme::text_colored(st.demand_multiplier > 1 ? theme::kRevenue : theme::kCost,
                            fmt_factor(st.demand_multiplier));
      } else {
        ImGui::TextDisabled("—");
      }
      ImGui::TableNextColumn();
      ImGui::Text("TTFT ≤ %s", fmt_seconds(seg.slo.ttft_s).c_str());
      ImGui::TextDisabled("TPOT ≤ %s", fmt_seconds(seg.slo.tpot_s).c_str());
      ImGui::TableNextColumn();
      theme::text_colored(slo_color(st.last_slo_attainment, game.scenario), fmt_pct(st.last_slo_attainment, 0));
      ImGui::TableNextColumn();
      ImGui::ProgressBar(static_cast<float>(st.reputation), ImVec2(-1, 0), fmt_pct(st.reputation, 0).c_str());
    }
    ImGui::EndTable();
  }

  // Rates over time.
  ImGui::Spacing();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float half = (ImGui::GetContentRegionAvail().x - gap) / 2;
  // The days before play (GameState::past), when the scenario has them, lead the requests chart, shaded.
  const double past_hours = static_cast<double>(s.past.num_hours());
  chart::Axis x_all{"game time", chart::Unit::kGameHour};
  x_all.min = -past_hours;
  x_all.max = static_cast<double>(std::max<std::int64_t>(24, s.hour));
  if (past_hours > 0) x_all.history_before = 0;
  chart::Axis x = x_all;
  x.min = 0;
  x.history_before = std::nullopt;
  std::vector<double> offered, completed, failed;
  auto per_s = [](std::vector<double>& out, const std::vector<double>& past, const std::vector<double>& now) {
    for (double v : past) out.push_back(v / 3600);
    for (double v : now) out.push_back(v / 3600);
  };
  per_s(offered, s.past.series[game::Series::kRequestsOffered], s.history[game::Series::kRequestsOffered]);
  per_s(completed, s.past.series[game::Series::kRequestsCompleted], s.history[game::Series::kRequestsCompleted]);
  per_s(failed, s.past.series[game::Series::kRequestsFailed], s.history[game::Series::kRequestsFailed]);
  chart::Line all[] = {{"offered", offered, theme::kCash, -past_hours, 1},
                       {"completed", completed, theme::kRevenue, -past_hours, 1, true},
                       {"failed", failed, theme::kCost, -past_hours, 1}};
  chart::time_series("##requests", all, x_all, {"requests, all segments", chart::Unit::kReqPerS}, ImVec2(half, 190));
  ImGui::SameLine();
  // Offered load per current deployment, from its hourly records.
  std::map<std::int64_t, std::vector<double>> per_dep;
  for (const auto& d : s.company.deployments) per_dep[d.id].assign(static_cast<std::size_t>(s.hour), 0.0);
  for (const auto& r : s.deployment_history) {
    auto it = per_dep.find(r.deployment_id);
    if (it != per_dep.end() && r.hour >= 0 && static_cast<std::size_t>(r.hour) < it->second.size()) {
      it->second[static_cast<std::size_t>(r.hour)] = r.offered_requests_per_s;
    }
  }
  std::vector<chart::Line> dep_lines;
  int color = 0;
  for (auto& [id, v] : per_dep) {
    const auto* d = s.company.find_deployment(id);
    std::string name = std::to_string(id);
    name.insert(name.begin(), '#');
    if (d) name.append(" ").append(d->segment);
    dep_lines.push_back({name, v, theme::series_color(color++), 0, 1});
  }
  chart::time_series("##perdep", dep_lines, x, {"offered load per deployment", chart::Unit::kReqPerS},
                     ImVec2(half, 190));

  // Inside a deployment.
  ImGui::Spacing();
  theme::heading("Inside a deployment");
  const auto* d = deployment_picker(game, view, "traffic");
  if (!d) {
    muted_wrapped("Deploy a model to see its queue, batch and caches here.");
    return;
  }
  const auto* seg = game.scenario.find_segment(d->segment);
  const double rate = game::deployment_rate_now(game.scenario, game.catalog, s, *d);
  const WhatIf w = what_if_now(s, *d);
  if (game::serves_nothing(w.replicas, w.decode)) {
    muted_wrapped("This deployment has no replicas: it serves nothing. Scale it up to see its queue here.");
    return;
  }
  auto result = previews.get([&] { return open_loop_job(previews, game.scenario, game.catalog, w, rate, s.seed); });
  ImGui::TextDisabled(
      "Simulated at this hour's load, %s on %d replica(s) (the game's own hour records keep only "
      "latencies and throughput).",
      fmt_req_per_s(rate).c_str(), w.replicas);
  if (!result) {
    ImGui::TextDisabled("simulating…");
    return;
  }
  if (!result->summary) {
    error_box("##traffic_err", "The simulator refused: " + result->error);
    return;
  }
  const auto& sm = *result->summary;
  ImGui::BeginGroup();
  gauge("Batch occupancy", sm.batch_occupancy(),
        fmt_count(sm.mean_batch_size) + " of " + std::to_string(sm.max_num_seqs) + " sequences", theme::kAccent,
        Concept::kBatchingTradeoff);
  gauge("KV-cache utilization", sm.kv_utilization_mean,
        fmt_pct(sm.kv_utilization_mean, 0) + " of " +
            fmt_count(static_cast<double>(sm.kv_capacity_tokens_per_replica)) + " tokens" +
            (sm.num_preemptions > 0 ? " · full: " + std::to_string(sm.num_preemptions) + " preempted" : ""),
        sm.num_preemptions > 0 ? theme::kCost : theme::kCash, Concept::kKvCache);
  gauge("Prefix-cache hit rate", sm.prefix_cache_hit_rate, fmt_pct(sm.prefix_cache_hit_rate, 0) + " of input tokens",
        theme::kRevenue, Concept::kPrefixCaching);
  gauge("Turned away", sm.failed_share(),
        std::to_string(sm.requests_rejected) + " rejected, " + std::to_string(sm.requests_timed_out) + " timed out",
        theme::kCost, Concept::kSlo);
  ImGui::EndGroup();
  ImGui::SameLine(0, 30);
  ImGui::BeginGroup();
  ImGui::TextDisabled("Queueing shows up in time to first token:");
  ImGui::Text("TTFT  p50 %s · p90 %s · p99 %s", fmt_seconds(sm.ttft_s.p50).c_str(), fmt_seconds(sm.ttft_s.p90).c_str(),
              fmt_seconds(sm.ttft_s.p99).c_str());
  ImGui::Text("TPOT  p50 %s · p90 %s · p99 %s", fmt_seconds(sm.tpot_s.p50).c_str(), fmt_seconds(sm.tpot_s.p90).c_str(),
              fmt_seconds(sm.tpot_s.p99).c_str());
  if (seg) {
    ImGui::TextDisabled("Targets: TTFT ≤ %s, TPOT ≤ %s · SLO met ≈ %s", fmt_seconds(seg->slo.ttft_s).c_str(),
                        fmt_seconds(seg->slo.tpot_s).c_str(), fmt_pct(game::slo_attainment(sm, seg->slo), 0).c_str());
  }
  ImGui::Text("Preemptions %lld · engine steps %lld", static_cast<long long>(sm.num_preemptions),
              static_cast<long long>(sm.num_iterations));
  if (!sm.requests_per_replica.empty() && sm.requests_per_replica.size() > 1) {
    std::string spread = "Requests per replica:";
    for (auto n : sm.requests_per_replica) spread.append(" ").append(std::to_string(n));
    ImGui::TextDisabled("%s", spread.c_str());
  }
  theme::provenance_badge(sm.provenance);
  ImGui::EndGroup();
}

}  // namespace tycoon::ui
