// GPU market: chips with specs and prices per contract type; rent and release.
#include <algorithm>
#include <cstdio>

#include "sim/econ/gpu_market.h"
#include "sim/game/fleet.h"
#include "sim/game/market.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

void chip_tooltip(const data::Accelerator& a, const std::string& price_source) {
  ImGui::BeginTooltip();
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted(a.name.c_str());
  ImGui::PopFont();
  ImGui::Text("HBM %s at %s", fmt_bytes(a.hbm_bytes).c_str(), fmt_bytes_per_s(a.hbm_bandwidth_bytes_per_s).c_str());
  ImGui::Text("Dense BF16 %s", fmt_flop_per_s(a.dense_bf16_flop_per_s).c_str());
  if (a.dense_fp8_flop_per_s > 0) ImGui::Text("Dense FP8 %s", fmt_flop_per_s(a.dense_fp8_flop_per_s).c_str());
  if (a.dense_fp4_flop_per_s > 0) ImGui::Text("Dense FP4 %s", fmt_flop_per_s(a.dense_fp4_flop_per_s).c_str());
  ImGui::Text("Scale-up: %s, %d GPUs, %s per GPU", a.scale_up.technology.c_str(), a.scale_up.domain_size,
              fmt_bytes_per_s(a.scale_up.bandwidth_bytes_per_s).c_str());
  ImGui::TextDisabled("Datasheet figures (%s).", a.file.c_str());
  if (!price_source.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    ImGui::TextDisabled("Price: %s", price_source.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTooltip();
}

std::string offer_key(const econ::GpuOffer& o) { return o.chip + "." + std::string(to_string(o.contract)); }

// "on demand" for on_demand: the contract as the player reads it.
std::string contract_label(Contract c) {
  std::string s(to_string(c));
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

}  // namespace

void draw_market_panel(const GameView& game, ViewState& view, CommandQueue& out) {
  const auto& s = game.state;
  const auto& company = s.company;

  heading_with_help("GPU market", Concept::kContracts);
  // Columns as wide as their contents.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("offers", 8, flags)) {
    ImGui::TableSetupColumn("Chip");
    ImGui::TableSetupColumn("Contract");
    ImGui::TableSetupColumn("$/GPU-hour");
    ImGui::TableSetupColumn("HBM · bandwidth");
    ImGui::TableSetupColumn("Available");
    ImGui::TableSetupColumn("Lead · term");
    ImGui::TableSetupColumn("Spot risk");
    ImGui::TableSetupColumn("Rent");
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < s.world.market.offers.size(); ++i) {
      const auto& o = s.world.market.offers[i];
      const auto* chip = game.catalog.find_accelerator(o.chip);
      const std::string key = offer_key(o);
      ImGui::PushID(key.c_str());
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_chip_name(game.catalog, o.chip).c_str());
      if (chip && ImGui::IsItemHovered()) {
        std::string source = i < game.scenario.offers.size() ? game.scenario.offers[i].price_source : "";
        chip_tooltip(*chip, source);
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(contract_label(o.contract).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_usd(o.price_usd_per_gpu_hour()).c_str());
      if (o.price_multiplier != 1.0) {
        ImGui::SameLine();
        theme::text_colored(o.price_multiplier > 1 ? theme::kCost : theme::kRevenue,
                            o.price_multiplier > 1 ? "▲" : "▼");
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("%s of the list price %s (a market event)", fmt_pct(o.price_multiplier, 0).c_str(),
                            fmt_usd_per_gpu_hour(o.list_price_usd_per_gpu_hour).c_str());
        }
      }
      ImGui::TableNextColumn();
      if (chip) {
        ImGui::Text("%s · %s", fmt_bytes(chip->hbm_bytes).c_str(),
                    fmt_bytes_per_s(chip->hbm_bandwidth_bytes_per_s).c_str());
      }
      const int left = game::gpus_left(company, o);
      ImGui::TableNextColumn();
      theme::text_colored(left > 0 ? theme::kText : theme::kMuted,
                          std::to_string(left) + " / " + std::to_string(o.available_gpus));
      ImGui::TableNextColumn();
      std::string lead = o.lead_time_hours > 0 ? std::to_string(o.lead_time_hours) + " h" : "now";
      if (o.contract == Contract::kReserved) lead += " · " + std::to_string(o.term_hours / 24) + " d";
      ImGui::TextUnformatted(lead.c_str());
      ImGui::TableNextColumn();
      if (o.contract == Contract::kSpot) {
        theme::text_colored(o.reclaimed_within_a_day_likely() ? theme::kCost : theme::kWarn,
                            fmt_pct(o.interruptions_per_hour, 1) + "/h");
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Chance per hour that the provider reclaims a spot contract: %s within a day",
                            fmt_pct(o.reclaim_chance(24), 0).c_str());
      } else {
        ImGui::TextDisabled("—");
      }
      ImGui::TableNextColumn();
      const bool locked = game.scenario.command_locked(game::RentGpus{o.chip, o.contract, 1});
      // At most what the offer has left (game::gpus_left; the game refuses more).
      const int most = std::max(1, game::gpus_left(s.company, o));
      int& count = view.rent_counts[key];
      count = std::clamp(count == 0 ? 1 : count, 1, most);
      input_int_steps("##n", &count, 1, 80 - 2 * (ImGui::GetFrameHeight() + 2));
      count = std::clamp(count, 1, most);
      tag(view.tags, "market.count." + key);
      ImGui::SameLine();
      if (locked) ImGui::BeginDisabled();
      if (ImGui::Button("Rent")) {
        // The game's own refusal (too few left, the first day's rent not covered), shown at once.
        const game::RentGpus rent{o.chip, o.contract, count};
        if (const auto why = game::rent_refusal(game.scenario, s, rent)) {
          view.message("Cannot rent. " + *why, false, s.hour);
        } else {
          out.push(rent);
        }
      }
      if (locked) ImGui::EndDisabled();
      tag(view.tags, "market.rent." + key);
      if (locked && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        ImGui::SetTooltip("Locked in this scenario");
      } else if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%d × %s = %s per day", count, fmt_usd_per_gpu_hour(o.price_usd_per_gpu_hour()).c_str(),
                          fmt_usd(game::first_day_rent_usd(o, count)).c_str());
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (s.world.market.offers.empty()) muted_wrapped("This scenario's market offers no GPUs.");

  ImGui::Spacing();
  ImGui::Spacing();
  theme::heading("Your fleet");
  if (company.contracts.empty()) {
    muted_wrapped(
        "No GPUs yet. Rent some above: each offer says when its GPUs arrive, and on-demand GPUs can be released "
        "any time.");
    return;
  }
  const double rent_per_hour = game::fleet_rent_usd_per_hour(s);
  ImGui::TextDisabled("Rent %s per hour, %s per day · %d GPUs ready", fmt_usd(rent_per_hour).c_str(),
                      fmt_usd(rent_per_hour * 24).c_str(), game::ready_gpus(company, s.hour));
  if (ImGui::BeginTable("fleet", 7, flags)) {
    ImGui::TableSetupColumn("#");
    ImGui::TableSetupColumn("GPUs", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("$/GPU-hour");
    ImGui::TableSetupColumn("Status");
    ImGui::TableSetupColumn("Idle on chip");
    ImGui::TableSetupColumn("Term");
    ImGui::TableSetupColumn("");
    ImGui::TableHeadersRow();
    for (const auto& c : company.contracts) {
      ImGui::PushID(static_cast<int>(c.id));
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("#%lld", static_cast<long long>(c.id));
      ImGui::TableNextColumn();
      ImGui::Text("%d × %s, %s", c.num_gpus, short_chip_name(game.catalog, c.chip).c_str(),
                  contract_label(c.contract).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_usd(game::contract_price_usd_per_gpu_hour(c, s.world.market)).c_str());
      ImGui::TableNextColumn();
      if (c.ready(s.hour)) {
        theme::text_colored(theme::kRevenue, "serving-ready");
      } else {
        theme::text_colored(theme::kWarn, "arrives in " + std::to_string(c.ready_at_hour - s.hour) + " h");
      }
      ImGui::TableNextColumn();
      const int idle = game::unclaimed_gpus(company, c.chip, std::nullopt);
      theme::text_colored(idle > 0   ? theme::kWarn
                          : idle < 0 ? theme::kCost
                                     : theme::kMuted,
                          game::unclaimed_label(idle));
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("GPUs of this chip under contract that no deployment wants. Idle GPUs still cost rent.");
      }
      ImGui::TableNextColumn();
      if (c.contract == Contract::kReserved) {
        ImGui::Text("until %s", fmt_hour_short(c.term_ends_at_hour).c_str());
      } else {
        ImGui::TextDisabled("none");
      }
      ImGui::TableNextColumn();
      const double fee = game::release_fee_usd(c, c.num_gpus, s.hour);
      const bool locked = game.scenario.command_locked(game::ReleaseGpus{});
      if (locked) ImGui::BeginDisabled();
      std::string label = fee > 0 ? "Release (fee " + fmt_usd(fee) + ")" : "Release";
      if (ImGui::Button(label.c_str())) out.push(game::ReleaseGpus{c.id, std::nullopt});
      if (locked) ImGui::EndDisabled();
      tag(view.tags, "market.release." + std::to_string(c.id));
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s", fee > 0 ? "Reserved GPUs released early pay the rest of the commitment at once"
                                        : "Stop renting these GPUs; deployments using them lose replicas");
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
}

}  // namespace tycoon::ui
