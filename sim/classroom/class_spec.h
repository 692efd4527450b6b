// A class: the world an instructor hands a group of students. It names a scenario (and pins the
// exact version of it by a hash of its canonical JSON), the seed every student plays, the length
// in days, levers the instructor locks on top of the scenario's own, and whether the advisor
// plays. Written as a small JSON file the instructor shares; loaded strictly (unknown keys,
// bad ids and unknown levers are errors naming the file and the JSON pointer).
//
//   {"format": "inference-tycoon-class", "version": 1, "class_id": "econ-101",
//    "title": "Econ 101, week 3", "scenario": "classroom-prices-only",
//    "scenario_hash": "fnv1a64:…", "seed": 2026, "days": 2,
//    "locked_levers": ["set_prices"], "advisor": false, "history_days": 3}
//
// history_days is optional (absent: the scenario's own history, if any).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/advisor/code_change_catalog.h"
#include "sim/data/catalog.h"
#include "sim/game/game.h"
#include "sim/game/scenario.h"

namespace tycoon::classroom {

inline constexpr std::string_view kClassFormat = "inference-tycoon-class";
inline constexpr int kClassVersion = 1;
// A class is played in class time: a game of more than this many days is not a class exercise
// (and the report replays every student's game).
inline constexpr int kMaxClassDays = 60;
inline constexpr std::size_t kMaxClassTitleBytes = 200;

struct ClassSpec {
  std::string class_id;       // data::is_safe_id: it names files
  std::string title;          // for the report's heading; may be empty
  std::string scenario;       // the scenario's id
  std::string scenario_hash;  // scenario_hash() of the scenario as set up
  std::uint64_t seed = 0;
  int days = 1;
  std::vector<std::string> locked_levers;  // added to the scenario's own (sorted, no duplicates)
  bool advisor = false;                    // Chien plays; only when accept_advice is not locked
  // Days of past traffic, prices and market on the charts at hour 0 (Scenario::history_days);
  // unset: the scenario's own.
  std::optional<int> history_days;
};

// "fnv1a64:<16 hex digits>" of the scenario's canonical JSON (game::to_json(scenario).dump()):
// any change to the scenario file that changes the game changes it.
std::string scenario_hash(const game::Scenario& scenario);

// What an instructor chooses for a new class.
struct ClassChoices {
  std::string class_id;
  std::string title;
  std::optional<std::uint64_t> seed;  // default: the scenario's
  std::optional<int> days;            // default: the scenario's
  std::vector<std::string> locked_levers;
  std::optional<bool> advisor;      // default: on when the scenario and the class leave accept_advice open
  std::optional<int> history_days;  // default: the scenario's; 0 to kMaxHistoryDays
};

// A new class on `scenario`. Throws std::invalid_argument naming the choice at fault: an unsafe
// id, days outside [1, kMaxClassDays], an unknown lever, an advisor in a class that locks
// accept_advice.
ClassSpec make_class(const game::Scenario& scenario, const ClassChoices& choices);

// A class as the query string of a link to the browser build, the class file's choices in a URL:
//
//   class=econ-101&scenario=classroom-prices-only&seed=2026&days=2&lock=set_prices,view_panel&history=3
//     &advisor=off&title=Econ%20101
//
// class and scenario are required; the rest default as in `tycoon class new`. The scenario's hash is
// not in the link: the browser computes it from the scenario it carries (make_class), so a link
// and a class file made from the same choices on the same scenario give the same ClassSpec.
struct ClassLink {
  std::string scenario;  // the scenario's id
  ClassChoices choices;
};
// Parses a query string (with or without its leading '?'; %XX and '+' decoded). Throws
// core::InputError naming the parameter and why: an unknown or repeated parameter, a missing
// class or scenario, a seed, days or history that is not a whole number, an advisor other than
// on/off. The choices themselves are checked by make_class, as a class file's are.
ClassLink parse_class_link(std::string_view query);
// The query string (without '?') of `spec`'s link: parse_class_link gives back its choices.
std::string class_link_query(const ClassSpec& spec);

nlohmann::json to_json(const ClassSpec& spec);
// Strict load. Throws data::LoadError naming the file and the JSON pointer.
ClassSpec class_from_json(const nlohmann::json& j, const std::string& file);
ClassSpec load_class(const std::filesystem::path& path);

// The class's world: its scenario with the class's seed and locks, and the game options for its
// length. Every game of the class (students', the report's replays, the counterfactuals) starts
// from it.
struct ClassWorld {
  ClassSpec spec;
  game::Scenario scenario;                                 // seed and locks applied; the length comes with `options`
  game::GameOptions options;                               // days; the serving-window cache shared by the class's games
  std::optional<advisor::CodeChangeCatalog> code_changes;  // when the advisor plays

  // A new game of the class at hour 0, with the advisor attached when the class has one.
  std::unique_ptr<game::Game> new_game(const data::Catalog& catalog) const;
};

// Resolves the class's scenario under `data_root` and checks that it is the one the class was
// set up with. Throws data::LoadError (file = `class_file`, pointer /scenario or /scenario_hash)
// when it is missing or has changed, or when the scenario now locks accept_advice for an
// advisor class.
ClassWorld class_world(const ClassSpec& spec, const std::string& class_file, const data::Catalog& catalog,
                       const std::filesystem::path& data_root, std::shared_ptr<game::ServingWindows> windows = nullptr);

}  // namespace tycoon::classroom
