#include "sim/classroom/class_spec.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "sim/advisor/advisor.h"
#include "sim/core/input_error.h"
#include "sim/core/utf8.h"
#include "sim/data/json_reader.h"
#include "sim/data/safe_id.h"
#include "sim/game/rng.h"
#include "sim/game/save.h"

namespace tycoon::classroom {

std::string scenario_hash(const game::Scenario& scenario) { return game::checksum_of(game::to_json(scenario).dump()); }

namespace {

// The class's locks, sorted and without duplicates, so that two instructors choosing the same
// locks in another order write the same file.
std::vector<std::string> normalized_levers(std::vector<std::string> levers) {
  std::sort(levers.begin(), levers.end());
  levers.erase(std::unique(levers.begin(), levers.end()), levers.end());
  return levers;
}

bool advice_locked(const game::Scenario& scenario, const std::vector<std::string>& class_locks) {
  return !scenario.advisor_allowed() ||
         std::find(class_locks.begin(), class_locks.end(), "accept_advice") != class_locks.end();
}

}  // namespace

ClassSpec make_class(const game::Scenario& scenario, const ClassChoices& choices) {
  if (!data::is_safe_id(choices.class_id)) {
    throw core::InputError("class id '" + choices.class_id + "' " + data::safe_id_rule());
  }
  if (choices.title.size() > kMaxClassTitleBytes) {
    throw core::InputError("title: longer than " + std::to_string(kMaxClassTitleBytes) + " bytes");
  }
  for (unsigned char c : choices.title) {
    if (c < 0x20 || c == 0x7f) throw core::InputError("title: holds a control character");
  }
  // Checked here, not when the class file is written (nlohmann throws on invalid UTF-8 then).
  if (!core::is_valid_utf8(choices.title)) throw core::InputError("title: not valid UTF-8 text");
  ClassSpec spec;
  spec.class_id = choices.class_id;
  spec.title = choices.title;
  spec.scenario = scenario.id;
  spec.scenario_hash = scenario_hash(scenario);
  spec.seed = choices.seed.value_or(scenario.seed);
  if (spec.seed > game::kMaxGameSeed) {
    throw core::InputError("seed: " + std::to_string(spec.seed) + " is over " + std::to_string(game::kMaxGameSeed) +
                           ", the largest a game takes");
  }
  spec.days = choices.days.value_or(scenario.days);
  if (spec.days < 1 || spec.days > kMaxClassDays) {
    throw core::InputError("days: " + std::to_string(spec.days) + " is not in [1, " + std::to_string(kMaxClassDays) +
                           "] (scenario " + scenario.id + ")");
  }
  for (const auto& lever : choices.locked_levers) {
    if (!game::is_known_lever(lever)) {
      throw core::InputError("lock: unknown lever '" + lever +
                             "' (levers: command types such as set_prices or rent_gpus, recipe.<field>, "
                             "contract.<on_demand|reserved|spot>)");
    }
  }
  spec.locked_levers = normalized_levers(choices.locked_levers);
  const bool locked = advice_locked(scenario, spec.locked_levers);
  if (choices.advisor.value_or(false) && locked) {
    throw core::InputError(
        "advisor: the class locks accept_advice" +
        std::string(scenario.lever_locked("accept_advice") ? " (scenario " + scenario.id + ")" : "") +
        ": nobody could act on the advisor's proposals");
  }
  spec.advisor = choices.advisor.value_or(!locked);
  if (choices.history_days) {
    if (*choices.history_days < 0 || *choices.history_days > game::kMaxHistoryDays) {
      throw core::InputError("history days: " + std::to_string(*choices.history_days) + " is not in [0, " +
                             std::to_string(game::kMaxHistoryDays) + "]");
    }
    spec.history_days = *choices.history_days;
  }
  return spec;
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX and '+' decoded; a '%' not followed by two hex digits is an error naming the parameter.
std::string url_decode(std::string_view text, std::string_view param) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      const bool two = i + 2 < text.size();
      const int hi = two ? hex_digit(text[i + 1]) : -1;
      const int lo = two ? hex_digit(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        throw core::InputError("link parameter '" + std::string(param) + "': a '%' not followed by two hex digits");
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~' || c == ',') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A whole number of at most 19 digits (no sign, no spaces): the link's seed, days and history.
std::uint64_t link_number(const std::string& value, std::string_view param, std::uint64_t max) {
  if (value.empty() || value.size() > 19 ||
      !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw core::InputError("link parameter '" + std::string(param) + "': '" + value + "' is not a whole number");
  }
  const auto v = std::stoull(value);
  if (v > max) {
    throw core::InputError("link parameter '" + std::string(param) + "': " + value + " is more than " +
                           std::to_string(max));
  }
  return v;
}

}  // namespace

ClassLink parse_class_link(std::string_view query) {
  if (!query.empty() && query.front() == '?') query.remove_prefix(1);
  std::map<std::string, std::string> params;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    const std::string key = url_decode(part.substr(0, eq), part.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? std::string() : url_decode(part.substr(eq + 1), key);
    static const std::set<std::string> kKnown = {"class", "scenario", "seed",    "days",
                                                 "lock",  "history",  "advisor", "title"};
    if (!kKnown.count(key)) {
      throw core::InputError("link parameter '" + key +
                             "' is not a class parameter (class, scenario, seed, days, lock, history, advisor, title)");
    }
    if (!params.emplace(key, value).second) throw core::InputError("link parameter '" + key + "' given twice");
  }
  ClassLink link;
  auto required = [&](const char* key) {
    auto it = params.find(key);
    if (it == params.end() || it->second.empty()) {
      throw core::InputError(std::string("link parameter '") + key + "' is missing");
    }
    return it->second;
  };
  link.choices.class_id = required("class");
  link.scenario = required("scenario");
  if (!data::is_safe_id(link.scenario)) {
    throw core::InputError("link parameter 'scenario': '" + link.scenario + "' is not a scenario id");
  }
  if (auto it = params.find("title"); it != params.end()) link.choices.title = it->second;
  if (auto it = params.find("seed"); it != params.end()) {
    link.choices.seed = link_number(it->second, "seed", game::kMaxGameSeed);
  }
  if (auto it = params.find("days"); it != params.end()) {
    link.choices.days = static_cast<int>(link_number(it->second, "days", kMaxClassDays));
    if (*link.choices.days < 1) throw core::InputError("link parameter 'days': at least 1");
  }
  if (auto it = params.find("history"); it != params.end()) {
    link.choices.history_days = static_cast<int>(link_number(it->second, "history", game::kMaxHistoryDays));
  }
  if (auto it = params.find("lock"); it != params.end()) {
    std::string_view rest = it->second;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const auto lever = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (!lever.empty()) link.choices.locked_levers.emplace_back(lever);
    }
  }
  if (auto it = params.find("advisor"); it != params.end()) {
    if (it->second != "on" && it->second != "off") {
      throw core::InputError("link parameter 'advisor': '" + it->second + "' is not on or off");
    }
    link.choices.advisor = it->second == "on";
  }
  return link;
}

std::string class_link_query(const ClassSpec& spec) {
  std::string q = "class=";
  q += url_encode(spec.class_id);
  q += "&scenario=";
  q += url_encode(spec.scenario);
  q += "&seed=";
  q += std::to_string(spec.seed);
  q += "&days=";
  q += std::to_string(spec.days);
  if (!spec.locked_levers.empty()) {
    q += "&lock=";
    for (std::size_t i = 0; i < spec.locked_levers.size(); ++i) {
      if (i) q += ',';
      q += url_encode(spec.locked_levers[i]);
    }
  }
  if (spec.history_days) {
    q += "&history=";
    q += std::to_string(*spec.history_days);
  }
  q += spec.advisor ? "&advisor=on" : "&advisor=off";
  if (!spec.title.empty()) {
    q += "&title=";
    q += url_encode(spec.title);
  }
  return q;
}

nlohmann::json to_json(const ClassSpec& spec) {
  nlohmann::json j = {{"format", kClassFormat}, {"version", kClassVersion},  {"class_id", spec.class_id},
                      {"title", spec.title},    {"scenario", spec.scenario}, {"scenario_hash", spec.scenario_hash},
                      {"seed", spec.seed},      {"days", spec.days},         {"locked_levers", spec.locked_levers},
                      {"advisor", spec.advisor}};
  if (spec.history_days) j["history_days"] = *spec.history_days;
  return j;
}

ClassSpec class_from_json(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw data::LoadError(file, "", "a class file is a JSON object");
  data::ObjectReader in(j, file, "");
  if (in.string("format") != kClassFormat) {
    in.fail("format", "not a class file (expected \"" + std::string(kClassFormat) + "\")");
  }
  const auto version = in.integer("version");
  if (version != kClassVersion) {
    in.fail("version", "version " + std::to_string(version) + " is not supported (this build reads version " +
                           std::to_string(kClassVersion) + ")");
  }
  ClassSpec s;
  s.class_id = in.string("class_id");
  if (!data::is_safe_id(s.class_id)) in.fail("class_id", "'" + s.class_id + "' " + data::safe_id_rule());
  s.title = in.optional_string("title").value_or("");
  s.scenario = in.string("scenario");
  if (!data::is_safe_id(s.scenario)) in.fail("scenario", "'" + s.scenario + "' is not a scenario id");
  s.scenario_hash = in.string("scenario_hash");
  if (s.scenario_hash.rfind("fnv1a64:", 0) != 0 || s.scenario_hash.size() != 24) {
    in.fail("scenario_hash", "'" + s.scenario_hash + "' is not a hash (fnv1a64: and 16 hex digits)");
  }
  const auto& seed = in.raw("seed");
  if (!seed.is_number_unsigned() || seed.get<std::uint64_t>() > game::kMaxGameSeed) {
    in.fail("seed",
            "must be a whole number from 0 to " + std::to_string(game::kMaxGameSeed) + ", the largest a game takes");
  }
  s.seed = seed.get<std::uint64_t>();
  const auto days = in.integer("days", data::Bound::kPositive);
  if (days > kMaxClassDays) {
    in.fail("days",
            std::to_string(days) + " is more than a class plays (at most " + std::to_string(kMaxClassDays) + ")");
  }
  s.days = static_cast<int>(days);
  s.locked_levers = in.has("locked_levers") ? in.string_array("locked_levers") : std::vector<std::string>{};
  for (std::size_t i = 0; i < s.locked_levers.size(); ++i) {
    if (!game::is_known_lever(s.locked_levers[i])) {
      throw data::LoadError(file, "/locked_levers/" + std::to_string(i), "unknown lever '" + s.locked_levers[i] + "'");
    }
  }
  s.locked_levers = normalized_levers(std::move(s.locked_levers));
  s.advisor = in.boolean("advisor");
  if (s.advisor &&
      std::find(s.locked_levers.begin(), s.locked_levers.end(), "accept_advice") != s.locked_levers.end()) {
    in.fail("advisor", "true while the class locks accept_advice");
  }
  if (in.has("history_days")) {
    const auto hd = in.integer("history_days", data::Bound::kNonNegative);
    if (hd > game::kMaxHistoryDays) {
      in.fail("history_days", std::to_string(hd) + " is more than " + std::to_string(game::kMaxHistoryDays) + " days");
    }
    s.history_days = static_cast<int>(hd);
  }
  in.finish();
  return s;
}

ClassSpec load_class(const std::filesystem::path& path) {
  return class_from_json(data::parse_json_file(path), path.string());
}

std::unique_ptr<game::Game> ClassWorld::new_game(const data::Catalog& catalog) const {
  auto g = std::make_unique<game::Game>(scenario, catalog, options);
  if (spec.advisor) g->set_advisor(advisor::default_advisor(catalog, g->scenario(), *code_changes));
  return g;
}

ClassWorld class_world(const ClassSpec& spec, const std::string& class_file, const data::Catalog& catalog,
                       const std::filesystem::path& data_root, std::shared_ptr<game::ServingWindows> windows) {
  std::filesystem::path path;
  try {
    path = game::find_scenario(spec.scenario, data_root);
  } catch (const data::UnknownIdError& e) {
    throw data::LoadError(class_file, "/scenario", e.what());
  }
  ClassWorld w;
  w.spec = spec;
  w.scenario = game::load_scenario(path, catalog);
  if (w.scenario.id != spec.scenario) {
    throw data::LoadError(class_file, "/scenario",
                          "'" + spec.scenario + "' found " + path.string() + " whose id is '" + w.scenario.id + "'");
  }
  const std::string now = scenario_hash(w.scenario);
  if (now != spec.scenario_hash) {
    throw data::LoadError(class_file, "/scenario_hash",
                          "the scenario " + spec.scenario + " (" + path.string() +
                              ") has changed since the class was set up (class: " + spec.scenario_hash +
                              ", now: " + now + "): students would not play the same world; set the class up again");
  }
  if (spec.advisor && w.scenario.lever_locked("accept_advice")) {
    throw data::LoadError(class_file, "/advisor", "true while the scenario " + spec.scenario + " locks accept_advice");
  }
  w.scenario.seed = spec.seed;
  for (const auto& lever : spec.locked_levers) {
    if (!w.scenario.lever_locked(lever)) w.scenario.locked_levers.push_back(lever);
  }
  w.options.seed = spec.seed;
  w.options.days = spec.days;
  if (spec.history_days) w.scenario.history_days = *spec.history_days;
  w.options.windows = windows ? std::move(windows) : std::make_shared<game::ServingWindows>();
  if (spec.advisor) w.code_changes = advisor::load_code_change_catalog_from_root(data_root);
  return w;
}

}  // namespace tycoon::classroom
