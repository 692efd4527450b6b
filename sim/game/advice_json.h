// The advisor's side of a save: a proposal in the inbox with its checks, and the advisor's own
// record of what it proposed (each proposal's truth, its random streams). Exact both ways, as
// GameState's JSON (state_json.h) is.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/data/json_reader.h"
#include "sim/game/advice.h"
#include "sim/game/advisor_state.h"

namespace tycoon::game {

nlohmann::json to_json(const Advice& a);
// Throws data::LoadError naming the file and the JSON pointer.
Advice read_advice(data::ObjectReader a);

nlohmann::json to_json(const AdvisorState& a);
AdvisorState read_advisor_state(data::ObjectReader in);

}  // namespace tycoon::game
