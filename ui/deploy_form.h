// The deployment form of the Deployments panel: model × chip × engine × recipe, a memory-fit
// check before committing, and a what-if preview from the serving simulator.
#pragma once

#include "ui/panels.h"

namespace tycoon::ui {

// Resets the form to deploy `segment` on `chip` with the default recipe (or, with `editing`, to
// change that deployment's recipe).
void reset_deploy_form(const GameView& game, ViewState& view, const std::string& segment, const std::string& chip,
                       std::optional<std::int64_t> editing);

void draw_deploy_form(const GameView& game, ViewState& view, CommandQueue& out);
void draw_fit_and_preview(const GameView& game, ViewState& view, Previews& previews);

}  // namespace tycoon::ui
