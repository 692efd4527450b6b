// Advisor inbox: proposals with their evidence and claimed gain, accept or reject, and the
// history of decisions. The advisor itself (sim/advisor) plugs into the game; this panel only
// shows what the game state's inbox holds.
#include <algorithm>

#include "sim/advisor/advisor.h"
#include "sim/game/tallies.h"
#include "ui/deploy_form.h"
#include "ui/format.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

// What accepting changes, as the player may know it: the recipe fields it sets. A code change's
// real effect (AdviceEffect::speedup, reputation_hit) is the simulator's hidden truth and is never
// shown; the card shows the advisor's claimed gain instead.
std::string effect_text(const game::Advice& a) {
  std::string out;
  for (auto f : game::recipe_fields_set(a.effect.recipe)) out += (out.empty() ? "" : ", ") + std::string(f);
  if (!out.empty()) return "recipe: " + out + " → " + game::to_json(a.effect.recipe).dump();
  return "a code change to the engine (its real effect shows once it runs on your traffic)";
}

const char* check_label(game::AdviceCheckKind k) {
  switch (k) {
    case game::AdviceCheckKind::kComponentTest:
      return "Component test";
    case game::AdviceCheckKind::kBenchmark:
      return "Benchmark";
    case game::AdviceCheckKind::kCanary:
      return "Canary";
  }
  return "Check";
}

const char* verdict_label(game::CheckVerdict v) {
  switch (v) {
    case game::CheckVerdict::kGain:
      return "gain";
    case game::CheckVerdict::kNoMeasurableChange:
      return "no measurable change";
    case game::CheckVerdict::kRegression:
      return "regression";
    case game::CheckVerdict::kFlagged:
      return "flagged";
  }
  return "";
}

// The checks paid for on this proposal: running ones with their hour, finished ones with what
// they measured, its 95% interval and the verdict the game reads from them (sim/game/advice.h),
// coloured by the verdict, never by the point estimate (never the truth: a component test can
// flatter, a benchmark has its noise).
void check_results(const GameView& game, const game::Advice& a) {
  if (a.checks.empty()) return;
  ImGui::TextDisabled("Checks");
  for (const auto& c : a.checks) {
    if (!c.ready(game.state.hour)) {
      ImGui::TextDisabled("%s: running, result %s · paid %s", check_label(c.kind),
                          fmt_game_time(c.ready_at_hour).c_str(), fmt_usd(c.cost_usd).c_str());
      continue;
    }
    std::string line = std::string(check_label(c.kind)) + ": " + verdict_label(c.verdict) + " · " +
                       fmt_factor(c.measured_speedup) + " end to end, 95% interval " + fmt_factor(c.interval_low) +
                       " to " + fmt_factor(c.interval_high);
    if (c.repetitions > 1) {
      line += " over " + std::to_string(c.repetitions) +
              (c.kind == game::AdviceCheckKind::kCanary ? " paired hours" : " paired runs");
    }
    if (c.measured_component_speedup) line += " (kernel " + fmt_factor(*c.measured_component_speedup) + ")";
    if (c.quality_flag) line += "; outputs differ beyond tolerance";
    if (c.rejection_flag) line += "; requests refused or failed";
    line += " · paid " + fmt_usd(c.cost_usd);
    const ImU32 colour = c.verdict == game::CheckVerdict::kGain                 ? theme::kRevenue
                         : c.verdict == game::CheckVerdict::kNoMeasurableChange ? theme::kMuted
                                                                                : theme::kCost;
    theme::text_colored(colour, line);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", game::describe_verdict(c.verdict).c_str());
  }
}

// One button per check the player can pay for, with its quoted cost and delay.
void check_buttons(const GameView& game, ViewState& view, CommandQueue& out, const game::Advice& a) {
  if (!game.advisor_options) return;  // an advisor that sells no checks
  const bool locked = game.scenario.command_locked(game::CheckAdvice{});
  bool first = true;
  for (const advisor::CheckOffer& offer : advisor::kCheckOffers) {
    const auto kind = offer.kind;  // plain copies: clang 14 cannot capture a structured binding
    const int reps = offer.repetitions;
    auto q = advisor::quote_check(*game.advisor_options, game.catalog, game.state, a, kind, reps);
    const auto refusal = game::check_refusal(game.scenario, game.state, a, kind, q.cost_usd);
    std::string label =
        std::string(check_label(kind)) +
        (kind == game::AdviceCheckKind::kBenchmark ? " x" + std::to_string(q.repetitions) + " runs" : "") + " · " +
        fmt_usd(q.cost_usd) + (kind == game::AdviceCheckKind::kCanary ? "+" : "") +
        (q.hours > 0 ? ", " + std::to_string(q.hours) + " h" : "");
    const bool disabled = locked || !q.available || refusal.has_value();
    // The checks get a row of their own, under Accept and Reject, wrapping where the card is narrow.
    flow(first, ImGui::CalcTextSize(label.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    first = false;
    if (disabled) ImGui::BeginDisabled();
    // Two offers can read the same (a canary pooled to 6 more hours, a fresh one of 6): one id each.
    ImGui::PushID(&offer);
    if (ImGui::Button(label.c_str())) out.push(game::CheckAdvice{a.id, kind, reps});
    ImGui::PopID();
    if (disabled) ImGui::EndDisabled();
    // The default checks keep the tags the tutorial rings; the longer ones are "benchmark_more"
    // and "canary_more".
    const std::string kind_name(game::kAdviceCheckKindNames[static_cast<std::size_t>(kind)]);
    tag(view.tags, "advisor.check." + (reps > 0 ? kind_name + "_more" : kind_name) + "." + a.id);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      ImGui::SetTooltip("%s%s", q.what.c_str(), refusal ? (" (now: " + *refusal + ")").c_str() : "");
    }
  }
}

void proposal_card(const GameView& game, ViewState& view, CommandQueue& out, const game::Advice& a) {
  ImGui::PushID(a.id.c_str());
  // A card sized to its contents: draw the contents on the top channel, then the background under them.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  ImGui::SetCursorScreenPos(ImVec2(start.x + 10, start.y + 8));
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 20);
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted(a.title.c_str());
  ImGui::PopFont();
  const auto* d = game.state.company.find_deployment(a.deployment_id);
  ImGui::TextDisabled(
      "For %s · posted %s",
      d ? deployment_label(*d).c_str() : ("deployment #" + std::to_string(a.deployment_id) + " (gone)").c_str(),
      fmt_game_time(a.posted_at_hour).c_str());
  theme::text_colored(theme::kPurple, "Claimed gain " + fmt_factor(a.claimed_speedup));
  if (a.minor) {
    ImGui::SameLine();
    theme::text_colored(theme::kMuted, "· minor: worth less than a check even if true");
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "What the advisor claims. The simulator, on your traffic, decides what is true: check before you trust.");
  }
  ImGui::TextDisabled("Evidence");
  ImGui::TextUnformatted(a.rationale.empty() ? "(none given)" : a.rationale.c_str());
  ImGui::TextDisabled("Change: %s", effect_text(a).c_str());
  check_results(game, a);
  ImGui::Spacing();
  const bool locked_accept = game.scenario.command_locked(game::AcceptAdvice{});
  const bool locked_reject = game.scenario.command_locked(game::RejectAdvice{});
  if (locked_accept) ImGui::BeginDisabled();
  ImGui::PushStyleColor(ImGuiCol_Button, theme::vec4(IM_COL32(38, 130, 120, 255)));
  if (ImGui::Button("Accept")) out.push(game::AcceptAdvice{a.id});
  ImGui::PopStyleColor();
  if (locked_accept) ImGui::EndDisabled();
  tag(view.tags, "advisor.accept." + a.id);
  ImGui::SameLine();
  if (locked_reject) ImGui::BeginDisabled();
  if (ImGui::Button("Reject")) out.push(game::RejectAdvice{a.id});
  if (locked_reject) ImGui::EndDisabled();
  tag(view.tags, "advisor.reject." + a.id);
  check_buttons(game, view, out, a);
  if (d && !game::recipe_fields_set(a.effect.recipe).empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Preview the recipe (free)")) {
      reset_deploy_form(game, view, d->segment, d->chip, d->id);
      view.deploy.recipe = game::apply_overrides(d->recipe, a.effect.recipe);
      view.open_tab(Tab::kDeployments);
    }
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Opens the recipe in the Deployments what-if preview. Code-change claims cannot be previewed.");
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  const ImVec2 end(start.x + width, ImGui::GetItemRectMax().y + 8);
  dl->ChannelsSetCurrent(0);
  dl->AddRectFilled(start, end, theme::kPanelRaised, 6);
  dl->AddRect(start, end, theme::with_alpha(theme::kPurple, 0.5f), 6);
  dl->ChannelsMerge();
  ImGui::SetCursorScreenPos(ImVec2(start.x, end.y + 8));
  ImGui::Dummy(ImVec2(width, 0));
  ImGui::PopID();
}

}  // namespace

void draw_advisor_panel(const GameView& game, ViewState& view, CommandQueue& out) {
  view.advisor_opened = true;
  const auto& inbox = game.state.inbox;
  const int pending = game::advice_tally(inbox).num_pending;
  theme::heading("Inbox");
  muted_wrapped(
      "The advisor profiles your deployments on your traffic, proposes recipe and code changes with a claimed "
      "gain, and you decide. Some proposals are real wins, some only win in isolation or on other traffic, "
      "and some break output quality: accepting blindly does worse than checking.");
  ImGui::Spacing();
  if (pending == 0) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, theme::kPanelRaised);
    ImGui::BeginChild("##empty", ImVec2(0, 64), true);
    ImGui::PushFont(theme::font_bold());
    ImGui::TextUnformatted("No proposals");
    ImGui::PopFont();
    ImGui::TextDisabled(inbox.empty()
                            ? "The advisor has not posted anything yet. It looks at your deployments every game hour."
                            : "Every proposal has been decided. New ones arrive as your traffic changes.");
    ImGui::EndChild();
    ImGui::PopStyleColor();
    tag(view.tags, "advisor.empty");
  } else {
    for (const auto& a : inbox) {
      if (a.status == game::AdviceStatus::kPending) proposal_card(game, view, out, a);
    }
  }

  ImGui::Spacing();
  theme::heading("History");
  bool any = false;
  if (ImGui::BeginTable("history", 5,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn("Proposal", ImGuiTableColumnFlags_WidthStretch, 2.5f);
    ImGui::TableSetupColumn("Deployment", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("Claimed", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("Decision", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("When", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (auto it = inbox.rbegin(); it != inbox.rend(); ++it) {
      const auto& a = *it;
      if (a.status == game::AdviceStatus::kPending) continue;
      any = true;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(a.title.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("#%lld", static_cast<long long>(a.deployment_id));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_factor(a.claimed_speedup).c_str());
      ImGui::TableNextColumn();
      const std::string_view decision = game::decision_label(a);
      theme::text_colored(decision == "accepted" ? theme::kRevenue : theme::kMuted, std::string(decision).c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", a.decided_at_hour ? fmt_game_time(*a.decided_at_hour).c_str() : "");
    }
    ImGui::EndTable();
  }
  if (!any) ImGui::TextDisabled("No decisions yet.");
}

}  // namespace tycoon::ui
