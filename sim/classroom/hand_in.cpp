#include "sim/classroom/hand_in.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <set>

#include "sim/core/input_error.h"
#include "sim/econ/prices.h"

namespace tycoon::classroom {

std::string class_game_problem(const ClassWorld& world, const game::Scenario& scenario, const game::GameState& state) {
  const auto& spec = world.spec;
  const std::int64_t class_end_hour = static_cast<std::int64_t>(spec.days) * 24;
  if (state.scenario_id != spec.scenario) {
    return "a game of scenario " + state.scenario_id + ", the class plays " + spec.scenario;
  }
  if (state.seed != spec.seed) {
    return "a game of seed " + std::to_string(state.seed) + ", the class plays seed " + std::to_string(spec.seed) +
           " (was the class code typed by hand?)";
  }
  if (state.end_hour != class_end_hour) {
    return "a game of " + std::to_string(state.end_hour) + " hours, the class plays " + std::to_string(class_end_hour);
  }
  if (scenario.locked_levers != world.scenario.locked_levers) {
    return "a game with other locked levers than the class's";
  }
  if (scenario.history_days != world.scenario.history_days) {
    return "a game with " + std::to_string(scenario.history_days) + " days of history before hour 0, the class has " +
           std::to_string(world.scenario.history_days);
  }
  return {};
}

HandIn hand_in_from_save(const ClassWorld& world, const data::Catalog& catalog, std::string_view save_text) {
  game::SaveData saved;
  try {
    saved = game::load_save_text(save_text, "the save", catalog);
  } catch (const game::SaveError& e) {
    throw core::InputError(std::string("not a save this game can read: ") + e.what());
  }
  return hand_in_from_save(world, catalog, std::move(saved));
}

HandIn hand_in_from_save(const ClassWorld& world, const data::Catalog& catalog, game::SaveData saved) {
  if (auto why = class_game_problem(world, saved.scenario, saved.state); !why.empty()) {
    throw NotThisClassError("the save is " + why + " (class " + world.spec.class_id + ")");
  }
  // The whole scenario as a new game of the class holds it: a save of another version of the
  // scenario file (or one edited by hand) is not a game of this class's world. Its goals are left
  // out: the hand-in is replayed on the class's own world, goals included, and the goals of a
  // class shorter than its scenario are scaled (game::set_days) since saves of earlier builds.
  const auto probe = world.new_game(catalog);
  auto world_of = [](game::Scenario s) {
    s.goals.clear();
    return scenario_hash(s);
  };
  const std::string expected = world_of(probe->scenario()), played = world_of(saved.scenario);
  if (played != expected) {
    throw NotThisClassError("the save is a game of another version of scenario " + world.spec.scenario + " (hash " +
                            played + ", the class's " + expected + ")");
  }
  if (saved.state.log.size() > kMaxHandInCommands) {
    throw core::InputError("the save holds " + std::to_string(saved.state.log.size()) + " commands, more than the " +
                           std::to_string(kMaxHandInCommands) + " a hand-in may hold");
  }
  HandIn h;
  h.commands = std::move(saved.state.log);
  h.at_hour = saved.state.hour;
  h.end_hour = saved.state.end_hour;
  h.finished = saved.state.finished;
  return h;
}

std::string_view to_string(AttemptPolicy p) { return kAttemptPolicyNames[static_cast<std::size_t>(p)]; }
std::string_view to_string(LatePolicy p) { return kLatePolicyNames[static_cast<std::size_t>(p)]; }

AttemptPolicy parse_attempt_policy(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kAttemptPolicyNames); ++i) {
    if (word == kAttemptPolicyNames[i]) return static_cast<AttemptPolicy>(i);
  }
  throw core::InputError("attempts: '" + std::string(word) + "' is not a policy (best, last or first)");
}

LatePolicy parse_late_policy(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kLatePolicyNames); ++i) {
    if (word == kLatePolicyNames[i]) return static_cast<LatePolicy>(i);
  }
  throw core::InputError("late: '" + std::string(word) + "' is not a policy (refuse or mark)");
}

bool deadline_passed(std::optional<std::int64_t> deadline_unix_s, std::int64_t now_unix_s) {
  return deadline_unix_s && now_unix_s > *deadline_unix_s;
}

bool hand_in_refused(LatePolicy late, std::optional<std::int64_t> deadline_unix_s, std::int64_t now_unix_s) {
  return late == LatePolicy::kRefuse && deadline_passed(deadline_unix_s, now_unix_s);
}

bool ranks_before(const AttemptFigures& a, const AttemptFigures& b) {
  if (a.finished != b.finished) return a.finished;
  if (a.score_points != b.score_points) return a.score_points > b.score_points;
  return a.profit_usd > b.profit_usd;
}

std::optional<std::size_t> counted_attempt(AttemptPolicy policy, const std::vector<AttemptFigures>& attempts) {
  const bool any_on_time =
      std::any_of(attempts.begin(), attempts.end(), [](const AttemptFigures& a) { return !a.late; });
  std::optional<std::size_t> counted;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    if (any_on_time && attempts[i].late) continue;
    if (!counted) {
      counted = i;
      if (policy == AttemptPolicy::kFirst) break;
      continue;
    }
    if (policy == AttemptPolicy::kLast ||
        (policy == AttemptPolicy::kBest && ranks_before(attempts[i], attempts[*counted]))) {
      counted = i;
    }
  }
  return counted;
}

namespace {

// A command's JSON with every fractional number rounded to kComparedSignificantDigits (whole
// numbers, ids and hours exact): a copied price nudged in its fourth digit is the same move.
void round_numbers(nlohmann::json& j) {
  if (j.is_object() || j.is_array()) {
    for (auto& x : j) round_numbers(x);
  } else if (j.is_number_float()) {
    const double v = j.get<double>();
    if (v == 0 || !std::isfinite(v)) return;
    const int exponent = static_cast<int>(std::floor(std::log10(std::abs(v)))) - (kComparedSignificantDigits - 1);
    const auto mantissa = static_cast<long long>(std::llround(v / std::pow(10.0, exponent)));
    j = std::to_string(mantissa) + "e" + std::to_string(exponent);
  }
}

}  // namespace

double command_log_similarity(const std::vector<game::LoggedCommand>& a, const std::vector<game::LoggedCommand>& b) {
  if (a.empty() || b.empty()) return 0;
  auto hashes = [](const std::vector<game::LoggedCommand>& log) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < log.size() && i < kMaxHandInCommands; ++i) {
      auto j = game::to_json(log[i]);
      round_numbers(j);
      out.push_back(std::hash<std::string>{}(j.dump()));
    }
    return out;
  };
  const auto ta = hashes(a), tb = hashes(b);
  // Longest common subsequence, one row at a time.
  std::vector<std::size_t> prev(tb.size() + 1, 0), row(tb.size() + 1, 0);
  for (std::size_t i = 1; i <= ta.size(); ++i) {
    for (std::size_t j = 1; j <= tb.size(); ++j) {
      row[j] = ta[i - 1] == tb[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], row[j - 1]);
    }
    std::swap(prev, row);
  }
  return 2.0 * static_cast<double>(prev[tb.size()]) / static_cast<double>(ta.size() + tb.size());
}

bool near_identical_logs(const std::vector<game::LoggedCommand>& a, const std::vector<game::LoggedCommand>& b) {
  if (a.size() < kMinCommandsCompared || b.size() < kMinCommandsCompared) return false;
  return command_log_similarity(a, b) >= kNearIdenticalLogSimilarity;
}

std::vector<CopyFlag> copy_flags(const std::string& student, const std::vector<game::LoggedCommand>& commands,
                                 const std::vector<EarlierHandIn>& earlier) {
  std::vector<CopyFlag> out;
  std::set<std::string> flagged;
  for (std::size_t i = 0; i < earlier.size(); ++i) {
    const auto& other = earlier[i];
    if (other.student == student || flagged.count(other.student)) continue;
    if (!near_identical_logs(commands, other.commands)) continue;
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", command_log_similarity(commands, other.commands));
    flagged.insert(other.student);
    out.push_back({i,
                   "commands near-identical to " + other.student + "'s attempt " + std::to_string(other.attempt) +
                       " (similarity " + similarity + ")",
                   "commands near-identical to " + student + "'s later hand-in (similarity " + similarity + ")"});
  }
  return out;
}

std::int64_t parse_utc_time(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  const std::string t(text);
  const bool with_seconds = std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &s, &n) == 6;
  if (!with_seconds) {
    s = 0;
    n = 0;
    if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &n) != 5) n = 0;
  }
  if (n == 0 || static_cast<std::size_t>(n) != t.size() || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 ||
      d > 31 || h > 23 || mi > 59 || s > 59 || h < 0 || mi < 0 || s < 0) {
    throw core::InputError("'" + t.substr(0, 40) + "' is not a UTC time like 2026-12-11T17:00:00Z");
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const std::int64_t out = static_cast<std::int64_t>(timegm(&tm));
  if (tm.tm_mday != d) throw core::InputError("'" + t + "': day " + std::to_string(d) + " is not in that month");
  return out;
}

std::string format_utc_time(std::int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string policy_sentence(AttemptPolicy attempts, std::optional<std::int64_t> deadline_unix_s, LatePolicy late) {
  std::string out = "the " + std::string(to_string(attempts)) + " attempt counts";
  if (deadline_unix_s) {
    out += ", deadline " + format_utc_time(*deadline_unix_s) +
           (late == LatePolicy::kRefuse
                ? " (later hand-ins are refused)"
                : " (later hand-ins are marked late, and count only for a student with no hand-in on time)");
  }
  return out;
}

std::string hand_in_receipt(const ReceiptFigures& f) {
  std::string out = "Handed in (attempt " + std::to_string(f.attempt);
  if (!f.finished) {
    out += ", unfinished at hour " + std::to_string(f.at_hour) + " of " + std::to_string(f.end_hour);
  }
  if (f.late) out += ", late";
  char figures[200];
  if (f.finished) {
    std::snprintf(figures, sizeof figures, "): score %.1f, profit %s, SLO %.1f%%", f.score_points,
                  econ::usd_text(f.profit_usd).c_str(), 100 * f.slo_attainment);
  } else {
    std::snprintf(figures, sizeof figures,
                  "): score %.1f for the share played; profit %s, SLO %.1f%% over the hours played", f.score_points,
                  econ::usd_text(f.profit_usd).c_str(), 100 * f.slo_attainment);
  }
  return out + figures;
}

}  // namespace tycoon::classroom
