#include "ui/library.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/game/rng.h"
#include "sim/game/scoring.h"

namespace tycoon::ui {

std::vector<ScenarioEntry> list_scenario_entries(const data::Catalog& catalog, const std::filesystem::path& data_root,
                                                 const std::vector<std::filesystem::path>& extra_dirs) {
  std::vector<std::filesystem::path> files;
  std::vector<std::filesystem::path> dirs{data_root / "scenarios"};
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<ScenarioEntry> out;
  std::set<std::string> ids;
  for (const auto& f : files) {
    ScenarioEntry e;
    e.path = f;
    e.id = f.stem().string();
    e.name = e.id;
    try {
      auto s = game::load_scenario(f, catalog);
      e.id = s.id;
      e.name = s.name;
      e.kind = s.kind;
      e.level = s.level;
      e.lesson = s.lesson_in_play();
      e.days = s.days;
    } catch (const std::exception& ex) {
      // Only files that mean to be scenarios (they name a kind) are listed as broken ones.
      std::ifstream in(f);
      auto j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("kind")) continue;
      e.error = ex.what();
    }
    if (!ids.insert(e.id).second) continue;  // the first folder wins
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const ScenarioEntry& a, const ScenarioEntry& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.level.value_or(0) != b.level.value_or(0)) return a.level.value_or(0) < b.level.value_or(0);
    return a.name < b.name;
  });
  return out;
}

bool unlocked(const std::vector<ScenarioEntry>& entries, const ScenarioEntry& e, const Progress& progress) {
  if (e.kind != game::ScenarioKind::kCampaign) return true;
  std::vector<std::pair<int, std::string>> campaign;
  for (const auto& x : entries) {
    if (x.kind == game::ScenarioKind::kCampaign && x.error.empty()) campaign.emplace_back(x.level.value_or(0), x.id);
  }
  return game::campaign_level_open(e.level.value_or(0), campaign, progress.best_stars);
}

Progress load_progress(const std::filesystem::path& path, std::string* error) {
  Progress p;
  std::ifstream in(path);
  if (!in) return p;
  try {
    auto j = nlohmann::json::parse(in);
    for (const auto& [id, stars] : j.at("best_stars").items()) p.best_stars[id] = stars.get<int>();
  } catch (const std::exception& e) {
    if (error) *error = path.string() + ": " + e.what();
    p.best_stars.clear();
  }
  return p;
}

bool save_progress(const Progress& p, const std::filesystem::path& path, std::string* error) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  nlohmann::json j = {{"best_stars", p.best_stars}};
  auto tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(1) << "\n";
    if (!out) {
      if (error) *error = "cannot write " + tmp.string();
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    if (error) *error = "cannot write " + path.string() + ": " + ec.message();
    return false;
  }
  return true;
}

std::vector<std::filesystem::path> list_saves(const std::filesystem::path& dir) {
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> found;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json") found.emplace_back(e.last_write_time(), e.path());
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::filesystem::path> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

}  // namespace tycoon::ui
