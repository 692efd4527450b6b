// GameState <-> JSON, exactly: a state read back from its JSON continues bit for bit like the
// original (doubles are written in shortest round-trip form, random streams as their full state).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/game/state.h"

namespace tycoon::game {

nlohmann::json to_json(const GameState& s);
// What a client may see of the state (the browser bridge's tycoon.state(), the desktop's state
// dump, any view): to_json without the hidden truths — no proposal's true effect (speedup,
// reputation hit), no check's measurement before it is ready, no random-stream state (it would
// tell the coming demand noise). Never read back: saves use to_json.
nlohmann::json player_view_json(const GameState& s);
// The hidden truths of a state's JSON (to_json), listed once for the live views and the saves:
// the advisor's memory, each inbox item's true effect, each deployment's true speedup (what its
// accepted code changes really do), and every measurement of a check not ready at the state's
// hour. Moves them out of `state` and returns them; restore_hidden_fields puts them back and
// throws std::invalid_argument (the reason) when they do not fit the state. A hidden part without
// "speedups" or "checks" (a save of an older build) restores what it has.
nlohmann::json take_hidden_fields(nlohmann::json& state);
void restore_hidden_fields(nlohmann::json& state, const nlohmann::json& hidden);
// Throws data::LoadError naming `file` and the JSON pointer.
GameState game_state_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer);

}  // namespace tycoon::game
