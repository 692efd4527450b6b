// Pricing and demand: your price per token type per model against the market's, and how each
// customer segment's demand answers a price change.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "sim/econ/demand.h"
#include "sim/game/lever_limits.h"
#include "sim/game/price_response.h"
#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

void price_row(const char* name, const char* id, double* draft, double current, double reference, bool locked,
               ViewState& view, const std::string& tag_name) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  ImGui::SetNextItemWidth(-1);
  if (locked) ImGui::BeginDisabled();
  ImGui::InputDouble(id, draft, 0.0, 0.0, "$%.3f");
  if (locked) ImGui::EndDisabled();
  *draft = game::kPriceUsdPerMtokRange.clamp(*draft);  // what SetPrices accepts
  tag(view.tags, tag_name);
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", fmt_usd_per_mtok(current).c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(fmt_usd_per_mtok(reference).c_str());
  ImGui::TableNextColumn();
  if (reference > 0) {
    const auto standing = econ::price_standing(*draft, reference);
    theme::text_colored(standing == econ::PriceStanding::kAbove   ? theme::kWarn
                        : standing == econ::PriceStanding::kBelow ? theme::kAccent
                                                                  : theme::kMuted,
                        fmt_pct(*draft / reference, 0));
  }
}

}  // namespace

void draw_pricing_panel(const GameView& game, ViewState& view, CommandQueue& out) {
  const auto& s = game.state;
  const bool locked = game.scenario.command_locked(game::SetPrices{});
  heading_with_help("Prices and demand", Concept::kPriceElasticity);
  muted_wrapped(
      "Prices are per million tokens. Customers compare the price of an average request with the market's: "
      "cut it and demand grows (up to " +
      fmt_factor(econ::kMaxPriceBoost) + "), raise it and they leave, more so the more elastic they are.");
  if (!s.past.empty() && !s.past.output_price_usd_per_mtok.empty()) {
    // The days before play: what the company charged, what the market charged, and the traffic it
    // got, so a price is set from data (shaded: history, not the game's own hours).
    const double past_hours = static_cast<double>(s.past.num_hours());
    chart::Axis x{"game time", chart::Unit::kGameHour};
    x.min = -past_hours;
    x.max = 0;
    x.history_before = 0;
    const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2;
    chart::Line prices[] = {
        {"your output price", s.past.output_price_usd_per_mtok, theme::kAccent, -past_hours, 1},
        {"market output price", s.past.market_output_price_usd_per_mtok, theme::kMuted, -past_hours, 1}};
    chart::time_series("##pastprices", prices, x,
                       {"history: " + model_name(game.catalog, s.past.priced_model) + " price", chart::Unit::kUsd},
                       ImVec2(w, 170));
    ImGui::SameLine();
    std::vector<double> offered;
    for (double v : s.past.series[game::Series::kRequestsOffered]) offered.push_back(v / 3600);
    chart::Line traffic{"requests offered", offered, theme::kCash, -past_hours, 1, true};
    chart::time_series("##pasttraffic", std::span(&traffic, 1), x, {"history: traffic", chart::Unit::kReqPerS},
                       ImVec2(w, 170));
  }
  for (const auto& [model, current] : s.company.prices) {
    ImGui::PushID(model.c_str());
    ImGui::Spacing();
    theme::heading(model_name(game.catalog, model));
    const auto reference = game::market_prices_now(game.scenario, game.state, model);
    auto draft_it = view.price_drafts.find(model);
    if (draft_it == view.price_drafts.end()) draft_it = view.price_drafts.emplace(model, current).first;
    auto& draft = draft_it->second;
    // The price table beside the demand curves, or above them where both do not fit in a row.
    constexpr float kTableMinW = 410, kCurvesMinW = 320;
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool side_by_side =
        avail - std::max(kTableMinW, avail * 0.46f) - ImGui::GetStyle().ItemSpacing.x >= kCurvesMinW;
    const float left_w = side_by_side ? std::max(kTableMinW, avail * 0.46f) : avail;
    ImGui::BeginGroup();
    if (ImGui::BeginTable("prices", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp, ImVec2(left_w, 0))) {
      // Names and numbers as wide as they are; the price field takes the rest.
      ImGui::TableSetupColumn("Tokens", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("New price", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableSetupColumn("Now", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("Market", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("vs market", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableHeadersRow();
      price_row("input", "##in", &draft.input_usd_per_mtok, current.input_usd_per_mtok, reference.input_usd_per_mtok,
                locked, view, "pricing." + model + ".input");
      price_row("cached input", "##cached", &draft.cached_input_usd_per_mtok, current.cached_input_usd_per_mtok,
                reference.cached_input_usd_per_mtok, locked, view, "pricing." + model + ".cached");
      price_row("output", "##out", &draft.output_usd_per_mtok, current.output_usd_per_mtok,
                reference.output_usd_per_mtok, locked, view, "pricing." + model + ".output");
      ImGui::EndTable();
    }
    if (locked) ImGui::BeginDisabled();
    const bool dirty = !(draft == current);
    if (!dirty) ImGui::BeginDisabled();
    if (ImGui::Button("Set prices")) {
      out.push(
          game::SetPrices{model, draft.input_usd_per_mtok, draft.cached_input_usd_per_mtok, draft.output_usd_per_mtok});
    }
    tag(view.tags, "pricing." + model + ".apply");
    ImGui::SameLine();
    if (ImGui::Button("Undo")) draft = current;
    if (!dirty) ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Match market")) draft = reference;
    // Every price of the draft 5% down or up: the quick way to try the curve's advice.
    for (const auto& [label, factor, suffix] : {std::tuple{"-5%", 0.95, ".down"}, std::tuple{"+5%", 1.05, ".up"}}) {
      ImGui::SameLine();
      if (ImGui::Button(label)) {
        draft.input_usd_per_mtok *= factor;
        draft.cached_input_usd_per_mtok *= factor;
        draft.output_usd_per_mtok *= factor;
      }
      tag(view.tags, "pricing." + model + suffix);
    }
    if (locked) ImGui::EndDisabled();
    if (locked) {
      ImGui::SameLine();
      ImGui::TextDisabled("prices are locked in this scenario");
    }
    if (auto it = game.scenario.reference_prices.find(model); it != game.scenario.reference_prices.end()) {
      if (const auto* card = game.catalog.find_model(model); card && !card->market_price.source.empty()) {
        ImGui::TextDisabled("Market price source (?)");
        if (ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
          ImGui::Text("%s, %s", card->market_price.date.c_str(), card->market_price.source.c_str());
          ImGui::PopTextWrapPos();
          ImGui::EndTooltip();
        }
      }
    }
    ImGui::EndGroup();

    // Demand response of each segment buying this model, at this hour and reputation.
    if (side_by_side) {
      ImGui::SameLine();
    } else {
      ImGui::Spacing();
    }
    ImGui::BeginGroup();
    for (std::size_t i = 0; i < game.scenario.segments.size(); ++i) {
      const auto& seg = game.scenario.segments[i];
      if (seg.model != model || i >= s.world.segments.size()) continue;
      const auto& st = s.world.segments[i];
      // The game's own forecast of next hour (sim/game/price_response.h): demand, the requests and
      // tokens each customer brings, capacity, rent and fixed costs.
      const auto curve = game::price_response(game.scenario, s, i, draft);
      if (curve.points.empty()) continue;
      std::vector<double> profit, revenue;
      for (const auto& p : curve.points) {
        profit.push_back(p.profit_usd_per_hour);
        revenue.push_back(p.revenue_usd_per_hour);
      }
      const std::vector<double> marker{curve.now.profit_usd_per_hour};
      std::vector<chart::Line> lines = {{"profit per hour", profit, theme::kRevenue, curve.x0, curve.dx},
                                        {"revenue", revenue, theme::series_color(0), curve.x0, curve.dx},
                                        {"your price", marker, theme::kText, curve.now_ratio, curve.dx, false, 2}};
      // Where demand falls to what the fleet can serve (game::PriceResponse::capacity_limit).
      std::vector<double> limit_marker;
      if (const auto& limit = curve.capacity_limit) {
        limit_marker.push_back(limit->profit_usd_per_hour);
        lines.push_back({"capacity limit", limit_marker, theme::kCost, limit->price_ratio, curve.dx, false, 2});
      }
      chart::Axis x{"price vs market", chart::Unit::kShare};
      x.min = curve.x0;
      x.max = curve.x_max;
      ImGui::TextUnformatted(seg.name.c_str());
      char facts[384];
      std::snprintf(
          facts, sizeof facts, "elasticity %.2f · reputation %s · %s offered now · %s", seg.demand.price_elasticity,
          fmt_pct(st.reputation, 0).c_str(), fmt_req_per_s(curve.now.offered_per_s).c_str(),
          curve.capacity_per_s ? ("fleet completes at most " + fmt_req_per_s(*curve.capacity_per_s)).c_str()
                               : ("fleet not saturated: it served " + fmt_req_per_s(curve.served_last_hour_per_s) +
                                  ", more is unknown (cheaper prices beyond that are not forecast)")
                                     .c_str());
      muted_wrapped(facts);
      if (curve.approximate) muted_wrapped("Approximate: " + curve.approximate_why + ".");
      if (curve.best_ratio) {
        char best[192];
        std::snprintf(best, sizeof best,
                      "Next hour: %s at your price; most profit at %s of the market's bill (you: %s). Costs %s/h.",
                      fmt_usd_signed(curve.now.profit_usd_per_hour).c_str(), fmt_pct(*curve.best_ratio, 0).c_str(),
                      fmt_pct(curve.now_ratio, 0).c_str(), fmt_usd(curve.costs_usd_per_hour()).c_str());
        muted_wrapped(best);
      }
      chart::time_series(("##demand" + seg.id).c_str(), lines, x, {"USD per hour", chart::Unit::kUsd}, ImVec2(0, 170));
    }
    ImGui::EndGroup();
    ImGui::PopID();
  }
  if (s.company.prices.empty()) muted_wrapped("This scenario sells nothing.");
}

}  // namespace tycoon::ui
