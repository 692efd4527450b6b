// The deployment form of the Deployments panel: model × chip × engine × recipe, a memory-fit
// check before committing (ui/deploy_memory_fit.cpp), and a what-if preview from the serving
// simulator (ui/deploy_preview.cpp).
#pragma once

#include "ui/panels.h"
#include "ui/what_if.h"

namespace tycoon::ui {

// Resets the form to deploy `segment` on `chip` with the default recipe (or, with `editing`, to
// change that deployment's recipe).
void reset_deploy_form(const GameView& game, ViewState& view, const std::string& segment, const std::string& chip,
                       std::optional<std::int64_t> editing);

void draw_deploy_form(const GameView& game, ViewState& view, CommandQueue& out);
// The memory fit of the form's recipe, then its what-if preview (ui/deploy_preview.cpp).
void draw_fit_and_preview(const GameView& game, ViewState& view, Previews& previews);

// The segment the form deploys for (null when the scenario has none of that id).
const game::SegmentSpec* form_segment(const GameView& game, const ViewState& view);
// The deployment the form describes, as the previews simulate it: the form's chip, recipe and
// replicas; when editing, the deployment's speedup and decode pool; when deploying a decode pool,
// that pool as the game will build it.
WhatIf form_what_if(const GameView& game, const ViewState& view);

}  // namespace tycoon::ui
