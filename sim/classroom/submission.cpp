#include "sim/classroom/submission.h"

#include <stdexcept>

#include "sim/classroom/hand_in.h"
#include "sim/core/input_error.h"
#include "sim/core/utf8.h"
#include "sim/data/json_reader.h"
#include "sim/game/save.h"
#include "sim/game/summary.h"

namespace tycoon::classroom {

std::string student_name_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxStudentNameLength) {
    return "is longer than " + std::to_string(kMaxStudentNameLength) + " characters";
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return "holds a control character";
  }
  // Checked here, not when the submission's JSON is written (nlohmann throws then).
  if (!core::is_valid_utf8(name)) return "is not valid UTF-8 text";
  return {};
}

nlohmann::json make_submission(const ClassWorld& world, const game::Game& game,
                               const game::Counterfactuals& counterfactuals, std::string_view student,
                               std::string_view student_code, std::optional<std::int64_t> stopped_at_hour) {
  if (auto why = student_name_problem(student); !why.empty()) {
    throw core::InputError("the student's name " + why);
  }
  const auto& st = game.state();
  if (!game.finished()) {
    throw core::InputError("the game is at hour " + std::to_string(st.hour) + " of " + std::to_string(st.end_hour) +
                           ": only a finished game can be submitted");
  }
  const auto& spec = world.spec;
  if (auto why = class_game_problem(world, game.scenario(), st); !why.empty()) {
    throw core::InputError("the game was not played in class " + spec.class_id + ": " + why);
  }
  nlohmann::json commands = nlohmann::json::array();
  for (const auto& c : st.log) commands.push_back(game::to_json(c));
  std::optional<game::GameState> at_stop;
  if (stopped_at_hour && *stopped_at_hour >= 0 && *stopped_at_hour < st.end_hour) {
    at_stop = state_at_stop(world, game, *stopped_at_hour);
  }
  const auto summary = game::summarize(game, &counterfactuals, stopped_at_hour, at_stop ? &*at_stop : nullptr);
  nlohmann::json payload = {{"student", std::string(student)},
                            {"class_id", spec.class_id},
                            {"scenario", spec.scenario},
                            {"scenario_hash", spec.scenario_hash},
                            {"seed", spec.seed},
                            {"days", spec.days},
                            {"commands", commands},
                            {"summary", game::to_json(summary)}};
  if (stopped_at_hour) {
    if (*stopped_at_hour < 0 || *stopped_at_hour > st.end_hour) {
      throw core::InputError("the game cannot have stopped at hour " + std::to_string(*stopped_at_hour) + " of " +
                             std::to_string(st.end_hour));
    }
    payload["stopped_at_hour"] = *stopped_at_hour;
  }
  if (!student_code.empty()) {
    if (student_code.size() > 64 || !core::is_valid_utf8(student_code)) {
      throw core::InputError("the student code is not one a roster issues");
    }
    payload["student_code"] = std::string(student_code);
  }
  return {{"format", kSubmissionFormat},
          {"version", kSubmissionVersion},
          {"checksum", game::checksum_of(payload.dump())},
          {"payload", payload}};
}

std::string submission_text(const nlohmann::json& submission) { return submission.dump(1) + "\n"; }

namespace {

double summary_number(const nlohmann::json& summary, const std::string& file, const char* key) {
  const std::string pointer = "/payload/summary/" + std::string(key);
  if (!summary.contains(key)) throw data::LoadError(file, pointer, "missing");
  const auto& v = summary.at(key);
  if (!v.is_number()) throw data::LoadError(file, pointer, "must be a number");
  return v.get<double>();
}

}  // namespace

Submission submission_from_json(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw data::LoadError(file, "", "a submission is a JSON object");
  data::ObjectReader in(j, file, "");
  if (in.string("format") != kSubmissionFormat) {
    in.fail("format", "not a submission (expected the format " + std::string(kSubmissionFormat) + ")");
  }
  const auto version = in.integer("version");
  if (version != kSubmissionVersion) {
    in.fail("version", "version " + std::to_string(version) + " is not supported (this build reads version " +
                           std::to_string(kSubmissionVersion) + ")");
  }
  const std::string checksum = in.string("checksum");
  const auto& payload = in.raw("payload");
  if (!payload.is_object()) in.fail("payload", "must be an object");
  const std::string expected = game::checksum_of(payload.dump());
  if (checksum != expected) {
    in.fail("checksum", "does not match the contents (" + checksum + " written, " + expected +
                            " computed): the file was damaged or edited after it was exported");
  }
  in.finish();

  data::ObjectReader p(payload, file, "/payload");
  Submission s;
  s.file = file;
  s.student = p.string("student");
  if (auto why = student_name_problem(s.student); !why.empty()) p.fail("student", why);
  s.student_code = p.optional_string("student_code").value_or("");
  if (s.student_code.size() > 64) p.fail("student_code", "longer than 64 characters");
  s.class_id = p.string("class_id");
  s.scenario = p.string("scenario");
  s.scenario_hash = p.string("scenario_hash");
  const auto& seed = p.raw("seed");
  if (!seed.is_number_unsigned()) p.fail("seed", "must be a whole number from 0 to 2^64 - 1");
  s.seed = seed.get<std::uint64_t>();
  s.days = static_cast<int>(p.integer("days", data::Bound::kPositive));
  const auto& commands = p.raw("commands");
  if (!commands.is_array()) p.fail("commands", "must be an array");
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const std::string pointer = "/payload/commands/" + std::to_string(i);
    if (!commands[i].is_object()) throw data::LoadError(file, pointer, "must be an object");
    auto c = game::logged_command_from_json(commands[i], file, pointer);
    if (!s.commands.empty() && c.at_hour < s.commands.back().at_hour) {
      throw data::LoadError(file, pointer + "/at_hour",
                            "goes back in time (" + std::to_string(c.at_hour) + " after " +
                                std::to_string(s.commands.back().at_hour) + ")");
    }
    s.commands.push_back(std::move(c));
  }
  if (p.has("stopped_at_hour")) {
    const auto hour = p.integer("stopped_at_hour", data::Bound::kNonNegative);
    if (hour > static_cast<std::int64_t>(s.days) * 24) p.fail("stopped_at_hour", "after the game's last hour");
    if (!s.commands.empty() && hour < s.commands.back().at_hour) {
      p.fail("stopped_at_hour", "before the last command's hour (" + std::to_string(s.commands.back().at_hour) + ")");
    }
    s.stopped_at_hour = hour;
  }
  // The summary is the game's own output (game::to_json(GameSummary)), kept whole for the record;
  // the figures the report checks are read from it strictly.
  s.summary = p.raw("summary");
  if (!s.summary.is_object()) p.fail("summary", "must be an object");
  s.claimed.profit_usd = summary_number(s.summary, file, "profit_usd");
  s.claimed.score_points = summary_number(s.summary, file, "score");
  s.claimed.slo_attainment = summary_number(s.summary, file, "slo_attainment");
  p.finish();
  return s;
}

Submission load_submission(const std::filesystem::path& path) {
  return submission_from_json(data::parse_json_file(path, core::kSubmissionInput), path.string());
}

std::unique_ptr<game::Game> play_class_game(const ClassWorld& world, const data::Catalog& catalog,
                                            const std::vector<game::LoggedCommand>& commands,
                                            std::vector<game::RefusedCommand>* refused) {
  auto g = world.new_game(catalog);
  auto r = game::replay(*g, commands);
  if (refused) *refused = std::move(r);
  return g;
}

game::GameState state_at_stop(const ClassWorld& world, const game::Game& game, std::int64_t hour) {
  auto g = world.new_game(game.catalog());
  std::size_t next = 0;
  const auto& log = game.state().log;
  (void)game::replay_until(*g, log, next, hour);
  // The commands of the stop hour itself were played before the hand-in (a check bought, a GPU
  // released): their charges are the student's, though the hour was not simulated.
  for (; next < log.size() && log[next].at_hour == hour && !g->finished(); ++next) (void)g->apply(log[next].command);
  return g->state();
}

nlohmann::json submission_of_play(const ClassWorld& world, const data::Catalog& catalog,
                                  const std::vector<game::LoggedCommand>& commands, std::string_view student,
                                  std::string_view student_code, std::optional<std::int64_t> stopped_at_hour,
                                  std::vector<game::RefusedCommand>* refused) {
  auto g = play_class_game(world, catalog, commands, refused);
  const auto cf = game::run_counterfactuals(g->scenario(), g->state(), catalog, world.options.windows, g->advisor());
  return make_submission(world, *g, cf, student, student_code, stopped_at_hour);
}

}  // namespace tycoon::classroom
