#include "ui/deploy_form.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "sim/game/deploy_checks.h"
#include "sim/game/fleet.h"
#include "sim/game/lever_limits.h"
#include "sim/game/plan.h"
#include "sim/game/serving_window.h"
#include "ui/chart.h"
#include "ui/concepts.h"
#include "ui/format.h"
#include "ui/theme.h"
#include "ui/what_if.h"
#include "ui/widgets.h"

namespace tycoon::ui {

namespace {

std::vector<std::string> market_chips(const GameView& game) {
  std::vector<std::string> chips;
  for (const auto& o : game.state.world.market.offers) {
    if (std::find(chips.begin(), chips.end(), o.chip) == chips.end()) chips.push_back(o.chip);
  }
  for (const auto& c : game.state.company.contracts) {
    if (std::find(chips.begin(), chips.end(), c.chip) == chips.end()) chips.push_back(c.chip);
  }
  return chips;
}

// The decode pool's recipe overrides when the form deploys a decode pool of its own (else nullopt).
std::optional<serving::ServingOverrides> form_decode_overrides(const GameView& game, const ViewState& view) {
  const auto& f = view.deploy;
  if (!game.scenario.allow_disaggregated || f.editing || !f.split || f.decode_chip.empty()) return std::nullopt;
  serving::ServingOverrides o;
  if (f.decode_tp > 0) o.tensor_parallel = f.decode_tp;
  return o;
}

bool locked_field(const GameView& game, std::string_view field) { return game.scenario.recipe_field_locked(field); }

// A row of radio buttons for integer choices.
bool int_choice(const GameView& game, ViewState& view, const char* label, const char* field, const char* tag_prefix,
                int* value, const std::vector<int>& choices, Concept topic) {
  const bool locked = locked_field(game, field);
  ImGui::TextUnformatted(label);
  help_marker(topic);
  ImGui::SameLine(150);
  bool changed = false;
  if (locked) ImGui::BeginDisabled();
  for (int c : choices) {
    std::string l = std::to_string(c) + "##" + field;
    if (ImGui::RadioButton(l.c_str(), *value == c)) {
      *value = c;
      changed = true;
    }
    tag(view.tags, std::string(tag_prefix) + "." + std::to_string(c));
    ImGui::SameLine();
  }
  if (locked) ImGui::EndDisabled();
  if (locked) ImGui::TextDisabled("locked");
  ImGui::NewLine();
  return changed;
}

}  // namespace

const game::SegmentSpec* form_segment(const GameView& game, const ViewState& view) {
  return game.scenario.find_segment(view.deploy.segment);
}

WhatIf form_what_if(const GameView& game, const ViewState& view) {
  WhatIf w;
  const auto* seg = form_segment(game, view);
  w.model = seg ? seg->model : "";
  w.chip = view.deploy.chip;
  w.segment = view.deploy.segment;
  w.recipe = view.deploy.recipe;
  // A new deployment has at least one replica (the form's least); an edited one keeps its own,
  // which may be none (it serves nothing: the preview says so).
  w.replicas = view.deploy.editing ? view.deploy.replicas : std::max(1, view.deploy.replicas);
  if (view.deploy.editing) {
    if (const auto* d = game.state.company.find_deployment(*view.deploy.editing)) {
      w.speedup = game::preview_speedup(game.state, *d);  // never the true effect
      w.decode = d->decode;                               // a recipe change keeps the decode pool
    }
  } else if (const auto overrides = form_decode_overrides(game, view)) {
    // The decode pool as the game will build it (game::decode_pool_recipe), with the form's GPUs
    // per replica.
    const auto* model = seg ? game.catalog.find_model(seg->model) : nullptr;
    const auto* acc = game.catalog.find_accelerator(view.deploy.decode_chip);
    if (model && acc) {
      game::DecodePoolState p;
      p.chip = acc->id;
      p.recipe = game::decode_pool_recipe(game.catalog, *model, *acc, w.recipe, *overrides);
      p.replicas = std::max(1, view.deploy.decode_replicas);
      p.link = view.deploy.decode_link;
      w.decode = p;
    }
  }
  return w;
}

void reset_deploy_form(const GameView& game, ViewState& view, const std::string& segment, const std::string& chip,
                       std::optional<std::int64_t> editing) {
  auto& f = view.deploy;
  f.segment = segment;
  f.chip = chip;
  f.editing = editing;
  f.replicas = 1;
  f.recipe_for.clear();
  const auto* seg = game.scenario.find_segment(segment);
  const auto* model = seg ? game.catalog.find_model(seg->model) : nullptr;
  const auto* acc = game.catalog.find_accelerator(chip);
  if (editing) {
    if (const auto* d = game.state.company.find_deployment(*editing)) {
      f.recipe = d->recipe;
      f.replicas = d->replicas;
      f.recipe_for = d->model + "|" + d->chip;
      return;
    }
  }
  if (model && acc) {
    f.recipe = game::default_recipe(game.catalog, *model, *acc);
    f.recipe_for = model->id + "|" + acc->id;
  }
}

namespace {

// The customer segment (and so the model): fixed while editing a deployment.
void draw_segment_choice(const GameView& game, ViewState& view) {
  auto& f = view.deploy;
  const auto& sc = game.scenario;
  // Customer segment (and so the model).
  ImGui::TextUnformatted("Customers");
  ImGui::SameLine(150);
  ImGui::BeginGroup();
  if (f.editing) ImGui::BeginDisabled();
  for (const auto& sg : sc.segments) {
    char label[256];
    std::snprintf(label, sizeof label, "%s · %s", sg.name.c_str(), model_name(game.catalog, sg.model).c_str());
    if (ImGui::RadioButton(label, f.segment == sg.id)) {
      f.segment = sg.id;
      f.recipe_for.clear();
    }
    tag(view.tags, "deploy.segment." + sg.id);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s traffic: %lld input → %lld output tokens per request; SLO TTFT ≤ %s, TPOT ≤ %s",
                        std::string(serving::kWorkloadNames[static_cast<std::size_t>(sg.workload.kind)]).c_str(),
                        static_cast<long long>(sg.workload.input_tokens),
                        static_cast<long long>(sg.workload.output_tokens), fmt_seconds(sg.slo.ttft_s).c_str(),
                        fmt_seconds(sg.slo.tpot_s).c_str());
    }
  }
  if (f.editing) ImGui::EndDisabled();
  ImGui::EndGroup();
}

void draw_chip_choice(const GameView& game, ViewState& view, const std::vector<std::string>& chips) {
  auto& f = view.deploy;
  // Chip.
  ImGui::TextUnformatted("Chip");
  ImGui::SameLine(150);
  ImGui::BeginGroup();
  if (f.editing) ImGui::BeginDisabled();
  for (std::size_t i = 0; i < chips.size(); ++i) {
    const auto& chip = chips[i];
    const int idle = game::unclaimed_gpus(game.state.company, chip, std::nullopt);
    std::string label = short_chip_name(game.catalog, chip) + " (" + game::unclaimed_label(idle) + ")";
    flow(i == 0, check_width(label.c_str()));
    if (ImGui::RadioButton(label.c_str(), f.chip == chip)) {
      f.chip = chip;
      f.recipe_for.clear();
    }
    tag(view.tags, "deploy.chip." + chip);
  }
  if (f.editing) ImGui::EndDisabled();
  ImGui::EndGroup();
}

void draw_replicas_row(ViewState& view) {
  auto& f = view.deploy;
  const auto& r = f.recipe;
  // Replicas.
  ImGui::TextUnformatted("Replicas");
  ImGui::SameLine(150);
  if (f.editing) ImGui::BeginDisabled();
  input_int_steps("##replicas", &f.replicas, 1, 110 - 2 * (ImGui::GetFrameHeight() + 2));
  if (f.editing) ImGui::EndDisabled();
  // A new deployment's replicas are the player's, within the game's range; an edited one keeps its
  // own (a recipe change never scales it), none included.
  if (!f.editing) f.replicas = game::kReplicasRange.clamp(f.replicas);
  tag(view.tags, "deploy.replicas");
  {
    char each[64];
    std::snprintf(each, sizeof each, "× %d GPUs each = %d", r.tensor_parallel,
                  game::pools_of(f.chip, f.replicas, r, std::nullopt).front().num_gpus);
    flow(false, ImGui::CalcTextSize(each).x);
    ImGui::TextDisabled("%s", each);
  }
}

void draw_engine_row(const GameView& game, ViewState& view, const data::Accelerator* acc) {
  auto& r = view.deploy.recipe;
  // Engine.
  ImGui::TextUnformatted("Engine");
  ImGui::SameLine(150);
  ImGui::SetNextItemWidth(200);
  if (locked_field(game, "engine")) ImGui::BeginDisabled();
  if (ImGui::BeginCombo("##engine", r.engine.c_str())) {
    // The engines the game accepts on this chip (game::engine_choices).
    for (const data::Engine* e : game::engine_choices(game.catalog, acc)) {
      if (ImGui::Selectable((e->id + "  (" + e->name + ")").c_str(), e->id == r.engine)) r.engine = e->id;
    }
    ImGui::EndCombo();
  }
  if (locked_field(game, "engine")) ImGui::EndDisabled();
}

// Weight and KV-cache precision.
void draw_precision_rows(const GameView& game, ViewState& view, const data::Accelerator* acc) {
  auto& r = view.deploy.recipe;
  // Precision.
  ImGui::TextUnformatted("Weights");
  help_marker(Concept::kPrecision);
  ImGui::SameLine(150);
  if (locked_field(game, "precision")) ImGui::BeginDisabled();
  for (std::size_t i = 0; i < kPrecisionNames.size(); ++i) {
    auto p = static_cast<Precision>(i);
    std::string label = std::string(kPrecisionNames[i]) + "##w";
    if (ImGui::RadioButton(label.c_str(), r.precision == p)) r.precision = p;
    tag(view.tags, "deploy.precision." + std::string(kPrecisionNames[i]));
    if (acc && !acc->supports(p) && ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s has no %s tensor cores: it computes in a wider format", acc->name.c_str(),
                        std::string(kPrecisionNames[i]).c_str());
    }
    ImGui::SameLine();
  }
  if (locked_field(game, "precision")) ImGui::EndDisabled();
  ImGui::NewLine();
  ImGui::TextUnformatted("KV cache");
  help_marker(Concept::kKvCache);
  ImGui::SameLine(150);
  if (locked_field(game, "kv_cache_dtype")) ImGui::BeginDisabled();
  for (Precision p : game::kKvCacheDtypeChoices) {
    std::string label = std::string(to_string(p)) + "##kv";
    if (ImGui::RadioButton(label.c_str(), r.kv_cache_dtype == p)) r.kv_cache_dtype = p;
    ImGui::SameLine();
  }
  if (locked_field(game, "kv_cache_dtype")) ImGui::EndDisabled();
  ImGui::NewLine();
}

// GPUs per replica (up to the scale-up domain) and, for MoE models, expert parallelism.
void draw_parallel_rows(const GameView& game, ViewState& view, const data::Accelerator* acc,
                        const data::ModelCard* model) {
  auto& r = view.deploy.recipe;
  // The sizes the game accepts on this chip (game::tensor_parallel_choices).
  const std::vector<int> tp_choices = acc ? game::tensor_parallel_choices(*acc) : std::vector<int>{r.tensor_parallel};
  int_choice(game, view, "GPUs per replica", "tensor_parallel", "deploy.tp", &r.tensor_parallel, tp_choices,
             Concept::kTensorParallel);
  if (model && model->is_moe()) {
    int_choice(game, view, "Expert parallel", "expert_parallel", "deploy.ep", &r.expert_parallel,
               game::expert_parallel_choices(r.tensor_parallel), Concept::kTensorParallel);
  }
  // Expert parallelism as the game leaves it after a change of tensor parallelism (reset to 1
  // where it no longer divides it).
  r = game::clamp_to_limits(r);
}

void draw_spec_decode_row(const GameView& game, ViewState& view, const data::Engine* engine) {
  auto& r = view.deploy.recipe;
  // Speculative decoding.
  ImGui::TextUnformatted("Draft tokens");
  help_marker(Concept::kSpeculativeDecoding);
  ImGui::SameLine(150);
  // The drafts the engine runs (game::spec_draft_tokens_range: none without speculative decoding).
  const game::IntRange drafts = game::spec_draft_tokens_range(engine);
  const bool spec_ok = drafts.max > 0;
  r.spec_draft_tokens = drafts.clamp(r.spec_draft_tokens);
  if (!spec_ok || locked_field(game, "spec_draft_tokens")) ImGui::BeginDisabled();
  ImGui::SetNextItemWidth(200);
  ImGui::SliderInt("##spec", &r.spec_draft_tokens, drafts.min, std::max(drafts.max, drafts.min + 1),
                   r.spec_draft_tokens == 0 ? "off" : "%d per step");
  tag(view.tags, "deploy.spec");
  if (!spec_ok || locked_field(game, "spec_draft_tokens")) ImGui::EndDisabled();
  // The note goes after the slider, or under it where the row has no room (aligned with the fields).
  auto note = [](const std::string& text) {
    flow(false, ImGui::CalcTextSize(text.c_str()).x);
    if (ImGui::GetCursorPosX() < 150) ImGui::SetCursorPosX(150);
    ImGui::TextDisabled("%s", text.c_str());
  };
  r.spec_draft_tokens = drafts.clamp(r.spec_draft_tokens);
  if (!spec_ok) {
    note(r.engine + " has no speculative decoding");
  } else if (r.spec_draft_tokens > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s, ≈%.2f tok/step", r.spec_method.c_str(),
                  acceptance_length_for(game.scenario, game.catalog, form_what_if(game, view)));
    note(buf);
  }
}

void draw_batch_limit_rows(const GameView& game, ViewState& view) {
  auto& r = view.deploy.recipe;
  // Batch limits.
  ImGui::TextUnformatted("Max sequences");
  help_marker(Concept::kBatchingTradeoff);
  ImGui::SameLine(150);
  if (locked_field(game, "max_num_seqs")) ImGui::BeginDisabled();
  input_int_steps("##seqs", &r.max_num_seqs, 16, 110 - 2 * (ImGui::GetFrameHeight() + 2));
  if (locked_field(game, "max_num_seqs")) ImGui::EndDisabled();
  r.max_num_seqs = game::kMaxNumSeqsRange.clamp(r.max_num_seqs);
  ImGui::TextUnformatted("Token budget");
  ImGui::SameLine(150);
  if (locked_field(game, "max_num_batched_tokens")) ImGui::BeginDisabled();
  input_int_steps("##budget", &r.max_num_batched_tokens, 1024, 110 - 2 * (ImGui::GetFrameHeight() + 2));
  if (locked_field(game, "max_num_batched_tokens")) ImGui::EndDisabled();
  r.max_num_batched_tokens = game::kMaxNumBatchedTokensRange.clamp(r.max_num_batched_tokens);
}

// Prefix caching, CUDA graphs and the router.
void draw_option_rows(const GameView& game, ViewState& view, const data::Engine* engine) {
  auto& r = view.deploy.recipe;
  ImGui::TextUnformatted("Options");
  ImGui::SameLine(150);
  const bool pc_ok = game::prefix_caching_choosable(engine);
  if (!pc_ok || locked_field(game, "prefix_caching")) ImGui::BeginDisabled();
  ImGui::BeginGroup();
  ImGui::Checkbox("prefix caching", &r.prefix_caching);
  concept_tooltip(Concept::kPrefixCaching);
  if (!pc_ok || locked_field(game, "prefix_caching")) ImGui::EndDisabled();
  flow(false, check_width("CUDA graphs"));
  const bool cg_ok = game::cuda_graphs_choosable(engine);
  if (!cg_ok || locked_field(game, "cuda_graphs")) ImGui::BeginDisabled();
  ImGui::Checkbox("CUDA graphs", &r.cuda_graphs);
  concept_tooltip(Concept::kCudaGraphs);
  if (!cg_ok || locked_field(game, "cuda_graphs")) ImGui::EndDisabled();
  ImGui::EndGroup();

  ImGui::TextUnformatted("Router");
  ImGui::SameLine(150);
  ImGui::BeginGroup();
  if (locked_field(game, "router")) ImGui::BeginDisabled();
  for (std::size_t i = 0; i < serving::kRouterNames.size(); ++i) {
    auto k = static_cast<serving::RouterKind>(i);
    std::string label = std::string(serving::kRouterNames[i]) + "##router";
    flow(i == 0, check_width(label.c_str()));
    if (ImGui::RadioButton(label.c_str(), r.router == k)) r.router = k;
    if (k == serving::RouterKind::kPrefixAffinity && ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Sends a session's requests to the replica that holds its prefix in cache");
    }
  }
  if (locked_field(game, "router")) ImGui::EndDisabled();
  ImGui::EndGroup();
}

// Disaggregated serving: a decode pool of its own chip, replicas and GPUs per replica, and the
// link the prompts' KV caches cross. Only in scenarios that allow it, and only for new deployments.
void draw_decode_pool_rows(const GameView& game, ViewState& view, const std::vector<std::string>& chips) {
  auto& f = view.deploy;
  if (!game.scenario.allow_disaggregated || f.editing) return;
  ImGui::TextUnformatted("Prefill / decode");
  help_marker(Concept::kDisaggregation);
  ImGui::SameLine(150);
  ImGui::Checkbox("separate decode pool", &f.split);
  tag(view.tags, "deploy.split");
  if (!f.split) return;
  if (std::find(chips.begin(), chips.end(), f.decode_chip) == chips.end()) f.decode_chip = f.chip;
  muted_wrapped("The replicas above run the prompts; the decode pool streams the answers.");
  ImGui::TextUnformatted("Decode chip");
  ImGui::SameLine(150);
  ImGui::BeginGroup();
  for (std::size_t i = 0; i < chips.size(); ++i) {
    const auto& chip = chips[i];
    std::string label = short_chip_name(game.catalog, chip) + "##decode_chip";
    flow(i == 0, check_width(label.c_str()));
    if (ImGui::RadioButton(label.c_str(), f.decode_chip == chip)) f.decode_chip = chip;
    tag(view.tags, "deploy.decode_chip." + chip);
  }
  ImGui::EndGroup();
  ImGui::TextUnformatted("Decode replicas");
  ImGui::SameLine(150);
  input_int_steps("##decode_replicas", &f.decode_replicas, 1, 110 - 2 * (ImGui::GetFrameHeight() + 2));
  f.decode_replicas = game::kReplicasRange.clamp(f.decode_replicas);
  tag(view.tags, "deploy.decode_replicas");
  const auto* acc = game.catalog.find_accelerator(f.decode_chip);
  ImGui::TextUnformatted("Decode GPUs each");
  ImGui::SameLine(150);
  ImGui::BeginGroup();
  {
    std::string l = "chip default##decode_tp";
    if (ImGui::RadioButton(l.c_str(), f.decode_tp == 0)) f.decode_tp = 0;
    // The sizes the game accepts on the decode chip (game::tensor_parallel_choices).
    for (int c : acc ? game::tensor_parallel_choices(*acc) : std::vector<int>{}) {
      std::string label = std::to_string(c) + "##decode_tp";
      flow(false, check_width(label.c_str()));
      if (ImGui::RadioButton(label.c_str(), f.decode_tp == c)) f.decode_tp = c;
      tag(view.tags, "deploy.decode_tp." + std::to_string(c));
    }
  }
  ImGui::EndGroup();
  ImGui::TextUnformatted("KV link");
  ImGui::SameLine(150);
  ImGui::BeginGroup();
  for (std::size_t i = 0; i < serving::kKvLinkNames.size(); ++i) {
    const auto k = static_cast<serving::KvLinkKind>(i);
    std::string label = std::string(serving::kKvLinkNames[i]) + "##kv_link";
    flow(i == 0, check_width(label.c_str()));
    if (ImGui::RadioButton(label.c_str(), f.decode_link == k)) f.decode_link = k;
    tag(view.tags, "deploy.kv_link." + std::string(serving::kKvLinkNames[i]));
    if (const auto* card = game.catalog.kv_links.find(serving::kKvLinkNames[i]); card && ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s: %s per transfer", card->name.c_str(), fmt_seconds(card->latency_s).c_str());
    }
  }
  ImGui::EndGroup();
}

// The command the form submits: a Deploy of the form's segment, chip, replicas, recipe (as
// overrides of the starting recipe) and decode pool, or, while editing, a ChangeRecipe of the
// fields that differ. Nothing when the form names no model or chip the catalog knows.
std::optional<game::Command> form_command(const GameView& game, const ViewState& view) {
  const auto& f = view.deploy;
  if (f.editing) {
    const auto* d = game.state.company.find_deployment(*f.editing);
    if (!d) return std::nullopt;
    return game::ChangeRecipe{*f.editing, game::overrides_between(d->recipe, f.recipe)};
  }
  const auto* seg = form_segment(game, view);
  const auto* model = seg ? game.catalog.find_model(seg->model) : nullptr;
  const auto* acc = game.catalog.find_accelerator(f.chip);
  if (!model || !acc) return std::nullopt;
  game::Deploy cmd{seg->model,
                   f.chip,
                   seg->id,
                   f.replicas,
                   game::overrides_between(game::default_recipe(game.catalog, *model, *acc), f.recipe),
                   std::nullopt};
  if (const auto o = form_decode_overrides(game, view)) {
    cmd.decode = game::DecodePoolSpec{f.decode_chip, std::max(1, f.decode_replicas), *o, f.decode_link};
  }
  return cmd;
}

// What stops the form from being submitted: the game's own refusal of the form's command (the
// game checks again when it applies it). Not blocking: only GPUs are missing (a warning).
struct FormProblem {
  std::string text;
  bool blocking = true;
};

FormProblem form_problem(const GameView& game, const std::optional<game::Command>& cmd) {
  if (!cmd) return {};
  const game::CheckContext ctx{game.catalog, game.scenario, game.state};
  std::optional<game::Refusal> refusal;
  if (const auto* deploy = std::get_if<game::Deploy>(&*cmd)) {
    refusal = game::check_deploy(ctx, *deploy);
  } else if (const auto* change = std::get_if<game::ChangeRecipe>(&*cmd)) {
    refusal = game::check_change_recipe(ctx, change->deployment_id, change->recipe, true);
  }
  if (!refusal) return {};
  return {refusal->message, !refusal->lacks_gpus};
}

// The Deploy / Apply button (or why not), Cancel or Default recipe, and the outcome.
void draw_submit(const GameView& game, ViewState& view, CommandQueue& out, const WhatIf& w,
                 const std::optional<game::Command>& cmd, const FormProblem& p) {
  auto& f = view.deploy;
  std::string problem = p.text;
  const bool blocking = p.blocking;
  // Just deployed with this very form: its GPUs are now the deployment's, which is success, not a
  // shortage. Say so, until the player changes the form to deploy something more.
  const std::string form_key = what_if_key(w, f.editing ? "edit" : "new");
  const bool just_deployed = !f.editing && !f.deployed_key.empty() && f.deployed_key == form_key;
  if (!just_deployed) f.deployed_key.clear();
  if (just_deployed && !blocking) problem.clear();
  const char* action = f.editing ? "Apply recipe" : "Deploy";
  const bool locked =
      (f.editing ? game.scenario.command_locked(game::ChangeRecipe{}) : game.scenario.command_locked(game::Deploy{}));
  if (locked) ImGui::BeginDisabled();
  ImGui::PushStyleColor(ImGuiCol_Button, theme::vec4(just_deployed     ? ImGui::GetColorU32(ImGuiCol_Button)
                                                     : problem.empty() ? IM_COL32(38, 130, 120, 255)
                                                                       : IM_COL32(90, 60, 60, 255)));
  if (ImGui::Button(action, ImVec2(140, 0))) {
    if (!problem.empty()) {
      view.message(std::string(f.editing ? "Cannot change the recipe. " : "Cannot deploy. ") + problem, false,
                   game.state.hour);
    } else if (const auto* change = cmd ? std::get_if<game::ChangeRecipe>(&*cmd) : nullptr) {
      if (game::recipe_fields_set(change->recipe).empty()) {
        view.message("The recipe is unchanged.", false, game.state.hour);
      } else {
        out.push(*change);
      }
    } else if (cmd) {
      out.push(*cmd);
      f.deployed_key = form_key;
    }
  }
  ImGui::PopStyleColor();
  if (locked) ImGui::EndDisabled();
  tag(view.tags, "deploy.submit");
  if (locked && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Locked in this scenario");
  if (f.editing) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) reset_deploy_form(game, view, f.segment, f.chip, std::nullopt);
  } else {
    ImGui::SameLine();
    if (ImGui::Button("Default recipe")) f.recipe_for.clear();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The catalog recipe for this model and chip");
  }
  if (just_deployed) {
    ImGui::Spacing();
    muted_wrapped(
        "Deployed: it is listed under Running deployments. To deploy another, change the form (and rent "
        "GPUs for it in the GPU market if none are idle).");
    tag(view.tags, "deploy.done");
  } else if (!problem.empty()) {
    ImGui::Spacing();
    if (blocking) {
      error_box("##deploy_problem", problem);
    } else {
      warn_box("##deploy_problem", problem);
    }
    tag(view.tags, "deploy.problem");
  }
}

}  // namespace

void draw_deploy_form(const GameView& game, ViewState& view, CommandQueue& out) {
  auto& f = view.deploy;
  const auto& sc = game.scenario;
  const auto chips = market_chips(game);
  if (f.editing && !game.state.company.find_deployment(*f.editing)) f.editing.reset();
  if (!sc.find_segment(f.segment) && !sc.segments.empty()) f.segment = sc.segments.front().id;
  if (std::find(chips.begin(), chips.end(), f.chip) == chips.end() && !chips.empty()) {
    // Prefer a chip the player already rents.
    f.chip = game.state.company.contracts.empty() ? chips.front() : game.state.company.contracts.front().chip;
  }
  const auto* seg = form_segment(game, view);
  if (!seg || chips.empty()) {
    muted_wrapped("This scenario has no customers or no GPUs to deploy on.");
    return;
  }
  if (f.recipe_for != seg->model + "|" + f.chip) reset_deploy_form(game, view, f.segment, f.chip, f.editing);

  if (f.editing) {
    const auto* d = game.state.company.find_deployment(*f.editing);
    theme::heading("Change recipe of " + deployment_label(*d));
  } else {
    theme::heading("New deployment");
  }

  draw_segment_choice(game, view);
  draw_chip_choice(game, view, chips);
  if (f.recipe_for != seg->model + "|" + f.chip) reset_deploy_form(game, view, f.segment, f.chip, f.editing);

  const auto* acc = game.catalog.find_accelerator(f.chip);
  const auto* model = game.catalog.find_model(seg->model);
  draw_replicas_row(view);
  draw_engine_row(game, view, acc);
  const auto* engine = game.catalog.find_engine(f.recipe.engine);
  draw_precision_rows(game, view, acc);
  draw_parallel_rows(game, view, acc, model);
  draw_spec_decode_row(game, view, engine);
  draw_batch_limit_rows(game, view);
  draw_option_rows(game, view, engine);
  draw_decode_pool_rows(game, view, chips);

  ImGui::Spacing();
  const WhatIf w = form_what_if(game, view);
  const auto cmd = form_command(game, view);
  draw_submit(game, view, out, w, cmd, form_problem(game, cmd));
}

}  // namespace tycoon::ui
