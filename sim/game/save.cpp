#include "sim/game/save.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/data/json_reader.h"
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

std::string save_text(const Game& game) {
  nlohmann::json payload = {{"scenario", to_json(game.scenario())}, {"state", to_json(game.state())}};
  nlohmann::json out = {{"format", kSaveFormat},
                        {"version", kSaveVersion},
                        {"checksum", checksum_of(payload.dump())},
                        {"payload", payload}};
  return out.dump(1) + "\n";
}

void save_game(const Game& game, const std::filesystem::path& path, const BeforeRenameHook& before_rename) {
  std::string text = save_text(game);
  auto temp = path;
  temp += ".tmp";
  auto fail = [&](const std::string& why) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw SaveError("cannot save to " + path.string() + ": " + why + " (the previous save is unchanged)");
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot create " + temp.string());
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) fail("writing " + temp.string() + " failed");
  }
  try {
    if (before_rename) before_rename(temp);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) fail(ec.message());
}

SaveData load_save_text(std::string_view text, const std::string& name, const data::Catalog& catalog) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
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
  try {
    data::ObjectReader payload(j["payload"], name, "/payload");
    SaveData out{scenario_from_json(payload.raw("scenario"), name, catalog),
                 game_state_from_json(payload.raw("state"), name, "/payload/state")};
    payload.finish();
    return out;
  } catch (const data::LoadError& e) {
    throw SaveError(std::string("corrupted save: ") + e.what());
  } catch (const std::exception& e) {
    throw SaveError(name + ": corrupted save (" + e.what() + ")");
  }
}

SaveData load_save(const std::filesystem::path& path, const data::Catalog& catalog) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SaveError("cannot read save file " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_save_text(ss.str(), path.string(), catalog);
}

}  // namespace tycoon::game
