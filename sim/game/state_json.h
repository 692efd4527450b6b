// GameState <-> JSON, exactly: a state read back from its JSON continues bit for bit like the
// original (doubles are written in shortest round-trip form, random streams as their full state).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/game/state.h"

namespace tycoon::game {

nlohmann::json to_json(const GameState& s);
// Throws data::LoadError naming `file` and the JSON pointer.
GameState game_state_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer);

}  // namespace tycoon::game
