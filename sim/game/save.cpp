#include "sim/game/save.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/atomic_file.h"
#include "sim/core/input_file.h"
#include "sim/core/version.h"
#include "sim/data/json_reader.h"
#include "sim/game/game.h"
#include "sim/game/rng.h"
#include "sim/game/state_json.h"

namespace tycoon::game {

std::string checksum_of(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

// The keystream: one mt19937_64 draw per 8 bytes, seeded from the game's seed and a purpose name.
template <typename F>
void for_each_key_byte(std::size_t n, std::uint64_t seed, F&& f) {
  boost::random::mt19937_64 rng(derive_seed(seed, "save-seal"));
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 8 == 0) word = rng();
    f(i, static_cast<unsigned char>(word >> (8 * (i % 8))));
  }
}

}  // namespace

std::string seal(std::string_view text, std::uint64_t seed) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(text.size() * 2, '0');
  for_each_key_byte(text.size(), seed, [&](std::size_t i, unsigned char k) {
    const auto b = static_cast<unsigned char>(static_cast<unsigned char>(text[i]) ^ k);
    out[2 * i] = kHex[b >> 4];
    out[2 * i + 1] = kHex[b & 15];
  });
  return out;
}

std::optional<std::string> unseal(std::string_view hex, std::uint64_t seed) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  bool ok = true;
  for_each_key_byte(out.size(), seed, [&](std::size_t i, unsigned char k) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) ok = false;
    out[i] = static_cast<char>(static_cast<unsigned char>((hi << 4 | lo) & 0xff) ^ k);
  });
  if (!ok) return std::nullopt;
  return out;
}

std::string save_text(const Game& game) {
  nlohmann::json state = to_json(game.state());
  const nlohmann::json hidden = take_hidden_fields(state);
  nlohmann::json payload = {
      {"scenario", to_json(game.scenario())}, {"state", state}, {"sealed", seal(hidden.dump(), game.state().seed)}};
  // "written_by" (the version and commit that wrote the file) is outside the payload and its checksum:
  // informative only, never read back, so a save loads the same in any build of this format.
  nlohmann::json out = {{"format", kSaveFormat},
                        {"version", kSaveVersion},
                        {std::string(core::kWrittenByKey), core::build_json()},
                        {"checksum", checksum_of(payload.dump())},
                        {"payload", payload}};
  return out.dump(1) + "\n";
}

void save_game(const Game& game, const std::filesystem::path& path, const BeforeRenameHook& before_rename) {
  try {
    core::write_file_atomically(path, save_text(game), before_rename);
  } catch (const core::FileWriteError& e) {
    throw SaveWriteError(std::string("cannot save: ") + e.what() + " (the previous save is unchanged)");
  }
}

namespace {

// Refuses a loaded state the game could never have produced (each check names its pointer).
// The checksum only proves the file is whole; these keep a hand-made save from breaking the game.
void check_meaning(const SaveData& d, const data::Catalog& catalog, const std::string& name) {
  const std::string st = "/payload/state";
  auto fail = [&](const std::string& pointer, const std::string& reason) {
    throw SaveError("corrupted save: " + name + ": " + pointer + ": " + reason);
  };
  const GameState& s = d.state;
  const Scenario& sc = d.scenario;
  if (s.scenario_id != sc.id) {
    fail(st + "/scenario_id", "'" + s.scenario_id + "' is not the saved scenario's id '" + sc.id + "'");
  }
  if (s.end_hour != sc.end_hour()) {
    fail(st + "/end_hour", std::to_string(s.end_hour) + " is not the scenario's end (" + std::to_string(sc.days) +
                               " days = hour " + std::to_string(sc.end_hour()) + ")");
  }
  if (s.hour > s.end_hour) {
    fail(st + "/hour",
         std::to_string(s.hour) + " is past the scenario's end (hour " + std::to_string(s.end_hour) + ")");
  }
  const double cash = s.company.cash_usd;
  if (!std::isfinite(cash) || std::fabs(cash) > kMaxSaveCashUsd) {
    fail(st + "/company/cash_usd", "must be a finite amount within +-1e13 USD");
  }
  auto known_chip = [&](const std::string& pointer, const std::string& chip) {
    if (!catalog.find_accelerator(chip)) fail(pointer, "unknown chip '" + chip + "'");
  };
  auto known_model = [&](const std::string& pointer, const std::string& model) {
    if (!catalog.find_model(model)) fail(pointer, "unknown model '" + model + "'");
  };
  auto within_game = [&](const std::string& pointer, std::int64_t hour) {
    if (hour < 0 || hour > s.end_hour + 24 * 3650)
      fail(pointer, "hour " + std::to_string(hour) + " is outside the game");
  };
  for (std::size_t i = 0; i < s.company.contracts.size(); ++i) {
    const auto& k = s.company.contracts[i];
    const std::string p = st + "/company/contracts/" + std::to_string(i);
    known_chip(p + "/chip", k.chip);
    within_game(p + "/signed_at_hour", k.signed_at_hour);
    within_game(p + "/ready_at_hour", k.ready_at_hour);
    within_game(p + "/term_ends_at_hour", k.term_ends_at_hour);
  }
  for (std::size_t i = 0; i < s.company.deployments.size(); ++i) {
    const auto& x = s.company.deployments[i];
    const std::string p = st + "/company/deployments/" + std::to_string(i);
    known_model(p + "/model", x.model);
    known_chip(p + "/chip", x.chip);
    if (x.decode) {
      if (!sc.allow_disaggregated) fail(p + "/decode", "the scenario offers no disaggregated serving");
      known_chip(p + "/decode/chip", x.decode->chip);
      try {
        (void)plan_deployment(catalog, sc, x, std::max(1, x.replicas), std::max(1, x.decode->replicas), {});
      } catch (const std::exception& e) {
        fail(p + "/decode", e.what());
      }
    }
    if (!sc.find_segment(x.segment)) fail(p + "/segment", "no segment '" + x.segment + "' in the scenario");
    within_game(p + "/created_at_hour", x.created_at_hour);
  }
  for (const auto& [model, prices] : s.company.prices) {
    const std::string p = st + "/company/prices/" + data::escape_pointer_token(model);
    known_model(p, model);
    const std::pair<const char*, double> fields[] = {{"input_usd_per_mtok", prices.input_usd_per_mtok},
                                                     {"cached_input_usd_per_mtok", prices.cached_input_usd_per_mtok},
                                                     {"output_usd_per_mtok", prices.output_usd_per_mtok}};
    for (const auto& [field, value] : fields) {
      if (auto why = data::check_bound(value, data::Bound::kNonNegative); !why.empty()) fail(p + "/" + field, why);
    }
  }
  if (s.world.segments.size() != sc.segments.size()) {
    fail(st + "/world/segments",
         std::to_string(s.world.segments.size()) + " segments, the scenario has " + std::to_string(sc.segments.size()));
  }
  for (std::size_t i = 0; i < s.world.segments.size(); ++i) {
    if (s.world.segments[i].id != sc.segments[i].id) {
      fail(st + "/world/segments/" + std::to_string(i) + "/id",
           "'" + s.world.segments[i].id + "' is not the scenario's segment '" + sc.segments[i].id + "'");
    }
  }
  auto index_within = [&](const std::string& pointer, std::size_t index, std::size_t size) {
    if (index > size) fail(pointer, std::to_string(index) + " is past the scenario's " + std::to_string(size));
  };
  index_within(st + "/world/next_event", s.world.next_event, sc.events.size());
  index_within(st + "/world/next_hint", s.world.next_hint, sc.hints.size());
  index_within(st + "/world/tutorial_step", s.world.tutorial_step, sc.tutorial_steps.size());
  for (std::size_t i = 0; i < s.world.market.offers.size(); ++i) {
    known_chip(st + "/world/market/" + std::to_string(i) + "/chip", s.world.market.offers[i].chip);
  }
}

}  // namespace

SaveData load_save_text(std::string_view text, const std::string& name, const data::Catalog& catalog) {
  nlohmann::json j;
  try {
    j = data::parse_json_text(text, name);
  } catch (const data::LoadError& e) {
    throw SaveError(name + ": corrupted save (not valid JSON: " + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != kSaveFormat) {
    throw SaveError(name + ": not an Inference Tycoon save (no \"format\": \"" + std::string(kSaveFormat) + "\")");
  }
  if (!j.contains("version") || !j["version"].is_number_integer()) {
    throw SaveError(name + ": corrupted save (no integer \"version\")");
  }
  auto version = j["version"].get<std::int64_t>();
  if (version > kSaveVersion) {
    throw SaveError(name + ": save version " + std::to_string(version) +
                    " was written by a newer Inference Tycoon; this build reads versions up to " +
                    std::to_string(kSaveVersion));
  }
  if (version < 1) throw SaveError(name + ": corrupted save (version " + std::to_string(version) + ")");
  if (!j.contains("payload") || !j.contains("checksum") || !j["checksum"].is_string()) {
    throw SaveError(name + ": corrupted save (payload or checksum missing)");
  }
  std::string want = j["checksum"].get<std::string>();
  std::string got = checksum_of(j["payload"].dump());
  if (want != got) {
    throw SaveError(name + ": corrupted save (checksum mismatch: the file says " + want + ", its contents hash to " +
                    got + ")");
  }
  SaveData out;
  try {
    data::ObjectReader payload(j["payload"], name, "/payload");
    nlohmann::json state = payload.raw("state");
    if (version >= 2) {
      // The seal's key is the game's seed; a seed that is not a number fails in the state's reader.
      const auto& sealed = payload.raw("sealed");
      std::uint64_t seed = 0;
      if (state.is_object() && state.contains("seed") && state["seed"].is_number_unsigned()) {
        seed = state["seed"].get<std::uint64_t>();
      }
      auto hidden_text = sealed.is_string() ? unseal(sealed.get<std::string>(), seed) : std::nullopt;
      if (!hidden_text) throw SaveError("corrupted save: " + name + ": /payload/sealed: not a sealed text");
      nlohmann::json hidden;
      try {
        hidden = data::parse_json_text(*hidden_text, name + " (sealed)");
      } catch (const data::LoadError&) {
        throw SaveError("corrupted save: " + name + ": /payload/sealed: does not unseal to JSON");
      }
      try {
        restore_hidden_fields(state, hidden);
      } catch (const std::invalid_argument& e) {
        throw SaveError("corrupted save: " + name + ": /payload/sealed: " + e.what());
      }
    }
    out = SaveData{scenario_from_json(payload.raw("scenario"), name, catalog),
                   game_state_from_json(state, name, "/payload/state")};
    payload.finish();
  } catch (const SaveError&) {
    throw;
  } catch (const data::LoadError& e) {
    throw SaveError(std::string("corrupted save: ") + e.what());
  } catch (const data::UnknownIdError& e) {
    throw SaveError("corrupted save: " + name + ": /payload/scenario: " + e.what());
  } catch (const std::exception& e) {
    throw SaveError(name + ": corrupted save (" + e.what() + ")");
  }
  check_meaning(out, catalog, name);
  return out;
}

void set_days(SaveData& save, int days) {
  set_days(save.scenario, days);
  save.state.end_hour = save.scenario.end_hour();
  save.state.finished = save.state.company.bankrupt || save.state.hour >= save.state.end_hour;
}

SaveData load_save(const std::filesystem::path& path, const data::Catalog& catalog) {
  std::string text;
  try {
    text = core::read_input_file(path, core::kSaveInput);
  } catch (const core::FileReadError& e) {
    throw SaveError(std::string("cannot read save file ") + e.what());
  }
  return load_save_text(text, path.string(), catalog);
}

namespace {

// Lowercase letters and digits kept, every other run of characters one '-', none at the ends.
std::string file_slug(std::string_view text) {
  std::string out;
  for (char c : text) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9')) {
      out += lower;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::string autosave_file_name(std::string_view scenario_id, std::string_view class_id, std::string_view student) {
  const std::string cls = file_slug(class_id), who = file_slug(student), base = file_slug(scenario_id);
  if (!cls.empty()) return "autosave-" + cls + (who.empty() ? "" : "-" + who) + ".json";
  return "autosave-" + (base.empty() ? std::string("game") : base) + ".json";
}

std::string save_file_name(std::string_view scenario_id, std::int64_t hour, std::string_view class_id,
                           std::string_view student) {
  const std::string cls = file_slug(class_id), who = file_slug(student);
  if (!cls.empty()) return cls + (who.empty() ? "" : "-" + who) + "-h" + std::to_string(hour) + ".json";
  char when[48];
  std::snprintf(when, sizeof when, "-day%lld-%02lldh.json", static_cast<long long>(hour / 24 + 1),
                static_cast<long long>(hour % 24));
  const std::string base = file_slug(scenario_id);
  return (base.empty() ? std::string("game") : base) + when;
}

}  // namespace tycoon::game
