// Deployments: what runs where, how it did last hour, and the form to deploy or change a recipe.
#include <algorithm>

#include "sim/game/fleet.h"
#include "sim/game/lever_limits.h"
#include "sim/game/slo.h"
#include "sim/game/tallies.h"
#include "ui/concepts.h"
#include "ui/deploy_form.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

void draw_deployments_panel(const GameView& game, ViewState& view, CommandQueue& out, Previews& previews) {
  const auto& s = game.state;
  theme::heading("Running deployments");
  if (s.company.deployments.empty()) {
    muted_wrapped("Nothing deployed yet: customers are turned away. Pick a customer segment and a chip below.");
  } else if (ImGui::BeginTable(
                 "deployments", 8,
                 ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) {
    // Numbers and buttons as wide as they are; the names and the recipe share the rest, wrapped.
    ImGui::TableSetupColumn("Deployment", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("Recipe", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("GPUs", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("Load", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("TTFT p90", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("TPOT p90", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("tok/s/GPU", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("SLO met", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    for (const auto& d : s.company.deployments) {
      ImGui::PushID(static_cast<int>(d.id));
      const auto* last = last_hour_of(s, d.id);
      const auto* seg = game.scenario.find_segment(d.segment);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      std::string name = id_label(d.id);
      name += ' ';
      name += model_name(game.catalog, d.model);
      text_wrapped(name);
      std::string for_whom = "for ";
      for_whom += seg ? seg->name : d.segment;
      muted_wrapped(for_whom);
      // Its controls, under its name (they wrap in a narrow column).
      const bool scale_locked = game.scenario.command_locked(game::ScaleReplicas{});
      if (scale_locked) ImGui::BeginDisabled();
      constexpr auto kScale = game::kScaleReplicasRange;
      if (ImGui::SmallButton("−")) out.push(game::ScaleReplicas{d.id, kScale.clamp(d.replicas - 1), std::nullopt});
      tag(view.tags, "deployments.scale_down." + std::to_string(d.id));
      ImGui::SameLine();
      if (ImGui::SmallButton("+")) out.push(game::ScaleReplicas{d.id, kScale.clamp(d.replicas + 1), std::nullopt});
      tag(view.tags, "deployments.scale_up." + std::to_string(d.id));
      if (scale_locked) ImGui::EndDisabled();
      ImGui::SameLine();
      ImGui::TextDisabled(d.decode ? "%d× prefill" : "%d×", d.replicas);
      if (d.decode) {
        // The decode pool's own replicas.
        if (scale_locked) ImGui::BeginDisabled();
        if (ImGui::SmallButton("−##decode")) {
          out.push(game::ScaleReplicas{d.id, d.replicas, kScale.clamp(d.decode->replicas - 1)});
        }
        tag(view.tags, "deployments.decode_scale_down." + std::to_string(d.id));
        ImGui::SameLine();
        if (ImGui::SmallButton("+##decode")) {
          out.push(game::ScaleReplicas{d.id, d.replicas, kScale.clamp(d.decode->replicas + 1)});
        }
        tag(view.tags, "deployments.decode_scale_up." + std::to_string(d.id));
        if (scale_locked) ImGui::EndDisabled();
        ImGui::SameLine();
        ImGui::TextDisabled("%d× decode", d.decode->replicas);
      }
      flow(false, ImGui::CalcTextSize("Recipe…").x + 2 * ImGui::GetStyle().FramePadding.x);
      if (ImGui::SmallButton("Recipe…")) reset_deploy_form(game, view, d.segment, d.chip, d.id);
      tag(view.tags, "deployments.edit." + std::to_string(d.id));
      flow(false, ImGui::CalcTextSize("Stop").x + 2 * ImGui::GetStyle().FramePadding.x);
      const bool stop_locked = game.scenario.command_locked(game::Undeploy{});
      if (stop_locked) ImGui::BeginDisabled();
      if (ImGui::SmallButton("Stop")) out.push(game::Undeploy{d.id});
      if (stop_locked) ImGui::EndDisabled();
      tag(view.tags, "deployments.stop." + std::to_string(d.id));
      ImGui::TableNextColumn();
      if (d.decode) {
        text_wrapped("prefill: " + game::describe(d.recipe));
        text_wrapped("decode: " + game::describe(d.decode->recipe));
        muted_wrapped("KV over " + std::string(serving::kKvLinkNames[static_cast<std::size_t>(d.decode->link)]));
      } else {
        text_wrapped(game::describe(d.recipe));
      }
      // Accepted code changes: what the advisor claimed for them. Their real effect is the
      // simulator's secret; it shows in this deployment's throughput (and in the debrief).
      if (const auto changes = game::claimed_code_changes(s.inbox, d.id); changes.num_changes > 0) {
        const int n = changes.num_changes;
        ImGui::PushStyleColor(ImGuiCol_Text, theme::kPurple);
        text_wrapped(std::to_string(n) + (n == 1 ? " code change" : " code changes") + ", claimed " +
                     fmt_factor(changes.claimed_speedup));
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip(
              "What the advisor claimed for the code changes you accepted. What they really do shows in "
              "this deployment's tokens per GPU, and in the debrief.");
        }
      }
      // Every accepted proposal still in force can be undone (RevertAdvice), code or recipe.
      const bool revert_locked = game.scenario.command_locked(game::RevertAdvice{});
      for (const auto& a : s.inbox) {
        if (a.deployment_id != d.id || game::revert_refusal(s, a)) continue;
        if (revert_locked) ImGui::BeginDisabled();
        if (ImGui::SmallButton(("Undo " + a.id).c_str())) out.push(game::RevertAdvice{a.id});
        if (revert_locked) ImGui::EndDisabled();
        tag(view.tags, "deployments.undo." + a.id);
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
          ImGui::SetTooltip("Undo %s (%s): the recipe and replicas as they were before it, its code change taken out.",
                            a.id.c_str(), a.title.c_str());
        }
      }
      ImGui::TableNextColumn();
      const int want = d.gpus_wanted();
      const int active = d.gpus_active();
      theme::text_colored(active < want ? theme::kWarn : theme::kText,
                          std::to_string(active) + "/" + std::to_string(want));
      if (const auto pools = d.pools(); pools.size() > 1) {
        ImGui::TextDisabled("%d %s + %d %s", pools[0].num_gpus, pools[0].chip.c_str(), pools[1].num_gpus,
                            pools[1].chip.c_str());
      } else {
        ImGui::TextDisabled("%s", d.chip.c_str());
      }
      if (ImGui::IsItemHovered() || active < want) {
        if (active < want && ImGui::IsItemHovered()) {
          if (d.decode) {
            ImGui::SetTooltip("%d of %d prefill and %d of %d decode replicas have GPUs: rent more or scale down",
                              d.active_replicas, d.replicas, d.decode->active_replicas, d.decode->replicas);
          } else {
            ImGui::SetTooltip("Only %d of %d replicas have GPUs: rent more %s or scale down", d.active_replicas,
                              d.replicas, d.chip.c_str());
          }
        }
      }
      ImGui::TableNextColumn();
      if (last && last->gpus_serving > 0) {
        ImGui::TextUnformatted(fmt_req_per_s(last->offered_requests_per_s).c_str());
        ImGui::TableNextColumn();
        theme::text_colored(
            seg && game::p90_over_bound(last->ttft_p90_s, seg->slo.ttft_s) ? theme::kCost : theme::kText,
            fmt_seconds(last->ttft_p90_s));
        ImGui::TableNextColumn();
        theme::text_colored(
            seg && game::p90_over_bound(last->tpot_p90_s, seg->slo.tpot_s) ? theme::kCost : theme::kText,
            fmt_seconds(last->tpot_p90_s));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt_count(last->output_tok_per_s_per_gpu).c_str());
        ImGui::TableNextColumn();
        const double slo = game::slo_attainment(last->requests_within_slo, last->requests_offered);
        theme::text_colored(slo_color(slo, game.scenario), fmt_pct(slo, 0));
      } else {
        ImGui::TextDisabled("%s", game::idle_label(d, s.hour).c_str());
        for (int i = 0; i < 4; ++i) {
          ImGui::TableNextColumn();
          ImGui::TextDisabled("—");
        }
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }

  // The form beside its memory fit and what-if preview, each scrolling on its own; where the two
  // do not fit side by side, one under the other in the panel's scroll.
  ImGui::Spacing();
  constexpr float kFormMinW = 490, kPreviewMinW = 360;
  const float avail = ImGui::GetContentRegionAvail().x;
  const float form_w = std::max(kFormMinW, avail * 0.5f);
  if (avail - form_w - ImGui::GetStyle().ItemSpacing.x >= kPreviewMinW) {
    ImGui::BeginChild("##form", ImVec2(form_w, 0), false);
    draw_deploy_form(game, view, out);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##fit", ImVec2(0, 0), false);
    draw_fit_and_preview(game, view, previews);
    ImGui::EndChild();
  } else {
    draw_deploy_form(game, view, out);
    ImGui::Spacing();
    draw_fit_and_preview(game, view, previews);
  }
}

}  // namespace tycoon::ui
