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
// Throws data::LoadError naming `file` and the JSON pointer.
GameState game_state_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer);

}  // namespace tycoon::game
