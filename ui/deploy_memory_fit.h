// The deploy form's memory-fit view (ui/deploy_memory_fit.cpp).
#pragma once

#include "ui/panels.h"
#include "ui/what_if.h"

namespace tycoon::ui {

// Draws how `w` (the form's deployment for `seg`) fills one GPU's memory and whether it
// fits, both pools when it has a decode pool. Returns true when every pool fits; false after
// drawing the reason when one does not (or cannot be planned).
bool draw_memory_fit(const GameView& game, ViewState& view, const game::SegmentSpec& seg, const WhatIf& w);

}  // namespace tycoon::ui
