// Small pieces shared by panels: headline number cards, deployment pickers, lookups over the
// game state that several panels need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "sim/game/last_hours.h"
#include "sim/game/scenario.h"
#include "sim/game/standing.h"
#include "sim/game/state.h"
#include "ui/panels.h"

namespace tycoon::ui {

using game::last_hour_of;  // the panels' recent hour of a deployment

// A card with a muted label, a big value and a colored sub-line; `tag` names it for tests.
void kpi_card(const char* id, std::string_view label, const std::string& value, const std::string& sub, ImU32 sub_color,
              float width, const char* tooltip = nullptr);

// The last value of a series, or `fallback`.
double last_value(const game::History& h, game::Series s, double fallback = 0);

// "#2 gpt-oss-120b on 2×h200 (chat)".
std::string deployment_label(const game::DeploymentState& d);

// A row of selectable chips for the player's deployments; keeps view.selected_deployment valid.
// Returns the selected deployment or null when there is none.
const game::DeploymentState* deployment_picker(const GameView& game, ViewState& view, const char* tag_prefix);

// The chip's display name ("NVIDIA H200") or its id.
std::string chip_name(const data::Catalog& catalog, const std::string& chip);
// The chip's name without the vendor ("H200 SXM").
std::string short_chip_name(const data::Catalog& catalog, const std::string& chip);
std::string model_name(const data::Catalog& catalog, const std::string& model);

// `text` broken into lines of at most `width` px at spaces and newlines only (ImGui's own word
// wrap also breaks after "." and ",", which split "$3.50" into "$3." and "50"). A word longer
// than `width` gets a line of its own. The views point into `text`.
std::vector<std::string_view> wrap_lines(std::string_view text, float width, const ImFont* font = nullptr,
                                         float font_size = 0);
// Wrapped text (at the wrap position pushed with PushTextWrapPos, else the window's right edge)
// that breaks only at spaces: the replacement for TextWrapped for text holding numbers.
void text_wrapped(std::string_view text);
// Shows `text` wrapped in a muted color.
void muted_wrapped(std::string_view text);

// An integer field with "-" and "+" buttons that step by `step` once per click (ImGui's own
// InputInt buttons auto-repeat while held, which on a slow frame turned three clicks into seven
// steps). Returns true when the value changed.
bool input_int_steps(const char* id, int* value, int step, float field_width);
// An inline error box (red border) with wrapped text.
void error_box(const char* id, const std::string& text);
void warn_box(const char* id, const std::string& text);

// Before an item `width` pixels wide in a row of items: on the same line when it fits, else on
// a new line (inside a group, new lines start at the group's left edge).
void flow(bool first, float width);
// Width of a radio button or checkbox with this label.
float check_width(const char* label);
// `text` cut to `width` pixels with an ellipsis.
std::string elide(const std::string& text, float width);

// The previous item's tooltip, wrapped to a readable width, when it is hovered (and text is set).
void wrapped_tooltip(const char* text);

// The colour of an SLO attainment as the level judges it (game::slo_standing): met, short, failing.
ImU32 slo_color(double attainment, const game::Scenario& scenario);
// The colour of a money figure as it stands (game::money_standing, margin_standing, cash_standing):
// `gain` (revenue's green, or cash's own colour), the text colour when even, the cost colour when
// a loss.
ImU32 money_color(game::MoneyStanding standing, ImU32 gain);

}  // namespace tycoon::ui
