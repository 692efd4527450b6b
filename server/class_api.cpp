#include "server/class_api.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/analysis/svg_chart.h"
#include "sim/classroom/answer_key.h"
#include "sim/classroom/hand_in.h"
#include "sim/classroom/roster.h"
#include "sim/core/input_error.h"
#include "sim/data/json_reader.h"
#include "sim/game/command.h"
#include "sim/game/rng.h"

namespace tycoon::server {

ApiResponse api_error(int status, const std::string& reason) {
  return {status, nlohmann::json{{"error", reason}}.dump() + "\n"};
}

namespace {

ApiResponse ok_json(const nlohmann::json& j, int status = 200) { return {status, j.dump(1) + "\n"}; }

// A LoadError as the reason a request was refused: the field (JSON pointer) and why.
std::string field_reason(const data::LoadError& e) {
  return (e.pointer().empty() ? std::string("/") : e.pointer()) + ": " + e.reason();
}

nlohmann::json parse_body(const std::string& body) {
  return data::parse_json_text(body, "the request body");  // LoadError on bad JSON
}

// A hand-in's figures as the policy and the standings compare them.
classroom::AttemptFigures figures_of(const HandInRecord& h) {
  return {h.attempt, h.score_points, h.profit_usd, h.finished, h.late};
}

// A student's attempts in hand-in order.
std::vector<classroom::AttemptFigures> figures_of(const std::vector<HandInRecord>& attempts) {
  std::vector<classroom::AttemptFigures> out;
  for (const auto& h : attempts) out.push_back(figures_of(h));
  return out;
}

// The counted hand-in of each student who handed in, by student.
std::map<std::string, HandInRecord> counted_by_student(Store& store, const ClassRecord& c) {
  std::map<std::string, std::vector<HandInRecord>> by_student;
  for (auto& h : store.hand_ins(c.class_id)) by_student[h.student].push_back(std::move(h));
  const auto policy = classroom::parse_attempt_policy(c.attempt_policy);
  std::map<std::string, HandInRecord> out;
  for (auto& [student, attempts] : by_student) {
    if (auto i = classroom::counted_attempt(policy, figures_of(attempts))) out.emplace(student, attempts[*i]);
  }
  return out;
}

nlohmann::json figures_json(const HandInRecord& h) {
  return {{"attempt", h.attempt},       {"handed_in_at", classroom::format_utc_time(h.received_at_unix_s)},
          {"score", h.score_points},    {"stars", h.stars},
          {"profit_usd", h.profit_usd}, {"slo_attainment", h.slo_attainment},
          {"finished", h.finished},     {"at_hour", h.at_hour},
          {"end_hour", h.end_hour},     {"late", h.late},
          {"commands", h.num_commands}};
}

nlohmann::json policy_json(const ClassRecord& c) {
  return {{"deadline", c.deadline_unix_s ? nlohmann::json(classroom::format_utc_time(*c.deadline_unix_s))
                                         : nlohmann::json(nullptr)},
          {"late", c.late_policy},
          {"attempts", c.attempt_policy}};
}

// A CSV field: quoted when it must be, and a leading = + - @ defused (a name is not a formula).
std::string csv_field(const std::string& s) {
  std::string v = s;
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')) v = "'" + v;
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char ch : v) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

ClassApi::ClassApi(Store& store, std::shared_ptr<const data::Catalog> catalog, std::filesystem::path data_root,
                   std::function<std::int64_t()> now_unix_s, std::function<std::uint64_t()> random_word)
    : store_(store),
      catalog_(std::move(catalog)),
      data_root_(std::move(data_root)),
      now_unix_s_(std::move(now_unix_s)),
      random_word_(std::move(random_word)) {}

std::shared_ptr<const ClassApi::ClassContext> ClassApi::context(const ClassRecord& c) {
  // Called with sim_mutex_ held.
  if (auto it = contexts_.find(c.class_id); it != contexts_.end()) return it->second;
  auto spec = classroom::class_from_json(nlohmann::json::parse(c.spec_json), "class " + c.class_id);
  auto world = classroom::class_world(spec, "class " + c.class_id, *catalog_, data_root_);
  auto benchmarks = classroom::play_class_benchmarks(world, *catalog_);
  auto ctx = std::make_shared<const ClassContext>(ClassContext{std::move(world), std::move(benchmarks)});
  contexts_.emplace(c.class_id, ctx);
  return ctx;
}

bool ClassApi::deadline_passed(const ClassRecord& c) const {
  return classroom::deadline_passed(c.deadline_unix_s, now_unix_s_());
}

std::optional<StudentRecord> ClassApi::student_of(const std::string& code) {
  const auto issued = classroom::issued_code(code);
  if (!issued) return std::nullopt;
  return store_.find_student_by_code(*issued);
}

ApiResponse ClassApi::create_class(const std::string& body) {
  classroom::ClassChoices choices;
  std::string scenario_name;
  ClassRecord record;
  try {
    const auto j = parse_body(body);
    if (!j.is_object()) return api_error(400, "/: a class is a JSON object");
    data::ObjectReader in(j, "the request body", "");
    choices.class_id = in.string("class_id");
    scenario_name = in.string("scenario");
    if (scenario_name.find('/') != std::string::npos || scenario_name.find(".json") != std::string::npos) {
      in.fail("scenario", "a scenario of the server's data by name (prices-only, spot-vs-reserved, ...), not a file");
    }
    choices.title = in.optional_string("title").value_or("");
    if (in.has("seed")) {
      const auto& seed = in.raw("seed");
      if (!seed.is_number_unsigned())
        in.fail("seed", "must be a whole number from 0 to " + std::to_string(game::kMaxGameSeed));
      choices.seed = seed.get<std::uint64_t>();
    }
    if (auto d = in.optional_integer("days", data::Bound::kPositive)) choices.days = static_cast<int>(*d);
    if (in.has("locks")) choices.locked_levers = in.string_array("locks");
    choices.advisor = in.optional_boolean("advisor");
    if (auto h = in.optional_integer("history_days", data::Bound::kNonNegative))
      choices.history_days = static_cast<int>(*h);
    in.finish();
  } catch (const data::LoadError& e) {
    return api_error(400, field_reason(e));
  }
  try {
    std::lock_guard lock(sim_mutex_);
    auto scenario = game::load_scenario(game::find_scenario(scenario_name, data_root_), *catalog_);
    auto spec = classroom::make_class(scenario, choices);
    (void)classroom::class_world(spec, "class " + spec.class_id, *catalog_, data_root_);
    record.class_id = spec.class_id;
    record.spec_json = classroom::to_json(spec).dump();
    record.created_at_unix_s = now_unix_s_();
    store_.create_class(record);
    return ok_json({{"class", classroom::to_json(spec)},
                    {"link_query", classroom::class_link_query(spec)},
                    {"policy", policy_json(record)}},
                   201);
  } catch (const StoreConflict& e) {
    return api_error(409, e.what());
  } catch (const data::UnknownIdError& e) {
    return api_error(400, std::string("/scenario: ") + e.what());
  } catch (const data::LoadError& e) {
    return api_error(400, field_reason(e));
  } catch (const std::invalid_argument& e) {  // make_class's and InputError's
    return api_error(400, e.what());
  }
}

ApiResponse ClassApi::list_classes() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : store_.classes()) {
    out.push_back({{"class", nlohmann::json::parse(c.spec_json)},
                   {"policy", policy_json(c)},
                   {"students", store_.students(c.class_id).size()},
                   {"hand_ins", store_.hand_ins(c.class_id).size()}});
  }
  return ok_json({{"classes", out}});
}

ApiResponse ClassApi::add_roster(const std::string& class_id, const std::string& body,
                                 const std::string& content_type) {
  if (!store_.find_class(class_id)) return api_error(404, "no class " + class_id);
  std::vector<std::string> names;
  try {
    if (content_type.rfind("text/plain", 0) == 0) {
      names = classroom::roster_names_from_text(body);
    } else {
      const auto j = parse_body(body);
      if (!j.is_object()) return api_error(400, "/: a roster is {\"students\": [names]} or plain text");
      data::ObjectReader in(j, "the request body", "");
      names = in.string_array("students");
      in.finish();
    }
    const auto codes = classroom::draw_student_codes(names.size(), random_word_);
    const auto roster = classroom::make_roster(class_id, names, codes);  // the names' checks
    std::vector<std::string> existing;
    for (const auto& s : store_.students(class_id)) existing.push_back(s.student);
    try {
      classroom::check_new_roster_names(existing, names);
    } catch (const core::InputError& e) {
      return api_error(409, e.what());  // a student the roster has already
    }
    std::vector<StudentRecord> rows;
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : roster.students) {
      rows.push_back({class_id, s.student, s.code, std::nullopt});
      out.push_back({{"student", s.student}, {"code", s.code}, {"link", "/?code=" + s.code}});
    }
    store_.add_students(rows);
    return ok_json({{"class_id", class_id}, {"students", out}}, 201);
  } catch (const data::LoadError& e) {
    return api_error(400, field_reason(e));
  } catch (const StoreConflict& e) {
    return api_error(409, e.what());
  } catch (const std::invalid_argument& e) {
    return api_error(400, e.what());
  }
}

ApiResponse ClassApi::set_policy(const std::string& class_id, const std::string& body) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  try {
    const auto j = parse_body(body);
    if (!j.is_object()) return api_error(400, "/: a policy is a JSON object");
    data::ObjectReader in(j, "the request body", "");
    if (in.has("deadline")) {
      const auto& d = in.raw("deadline");
      if (d.is_null()) {
        c->deadline_unix_s.reset();
      } else if (d.is_string()) {
        try {
          c->deadline_unix_s = classroom::parse_utc_time(d.get<std::string>());
        } catch (const core::InputError& e) {
          in.fail("deadline", e.what());
        }
      } else {
        in.fail("deadline", "a UTC time like 2026-12-11T17:00:00Z, or null for none");
      }
    }
    try {
      if (auto late = in.optional_string("late"))
        c->late_policy = classroom::to_string(classroom::parse_late_policy(*late));
      if (auto a = in.optional_string("attempts"))
        c->attempt_policy = classroom::to_string(classroom::parse_attempt_policy(*a));
    } catch (const core::InputError& e) {
      return api_error(400, e.what());
    }
    in.finish();
  } catch (const data::LoadError& e) {
    return api_error(400, field_reason(e));
  }
  store_.set_policy(class_id, c->deadline_unix_s, c->late_policy, c->attempt_policy);
  return ok_json({{"class_id", class_id}, {"policy", policy_json(*c)}});
}

ApiResponse ClassApi::leaderboard(const std::string& class_id) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  std::map<std::string, std::size_t> attempts;
  for (const auto& h : store_.hand_ins(class_id)) ++attempts[h.student];
  const auto students = store_.students(class_id);
  const auto student_row = [&](const std::string& student) {
    nlohmann::json started = nullptr;
    for (const auto& s : students) {
      if (s.student == student && s.started_at_unix_s) started = classroom::format_utc_time(*s.started_at_unix_s);
    }
    return nlohmann::json{{"student", student}, {"started_at", started}, {"attempts", attempts[student]}};
  };
  nlohmann::json standings = nlohmann::json::array();
  std::set<std::string> handed_in;
  for (const auto& h : counted_in_order(*c)) {
    auto row = student_row(h.student);
    row["counted"] = figures_json(h);
    row["flags"] = h.flags;
    row["rank"] = standings.size() + 1;
    standings.push_back(std::move(row));
    handed_in.insert(h.student);
  }
  nlohmann::json waiting = nlohmann::json::array();
  for (const auto& s : students) {
    if (!handed_in.contains(s.student)) waiting.push_back(student_row(s.student));
  }
  return ok_json({{"class", nlohmann::json::parse(c->spec_json)},
                  {"policy", policy_json(*c)},
                  {"deadline_passed", deadline_passed(*c)},
                  {"standings", standings},
                  {"not_handed_in", waiting}});
}

ApiResponse ClassApi::gradebook_csv(const std::string& class_id) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  const auto counted = counted_by_student(store_, *c);
  std::string csv = "student,score,stars,profit_usd,slo_attainment,finished,late,attempt,handed_in_at,flags\n";
  for (const auto& s : store_.students(class_id)) {
    auto it = counted.find(s.student);
    if (it == counted.end()) {
      csv += csv_field(s.student) + ",,,,,,,,,\n";
      continue;
    }
    const auto& h = it->second;
    std::string flags;
    for (const auto& f : h.flags) flags += (flags.empty() ? "" : "; ") + f;
    csv += csv_field(s.student) + "," + fixed(h.score_points, 1) + "," + std::to_string(h.stars) + "," +
           fixed(h.profit_usd, 2) + "," + fixed(h.slo_attainment, 4) + "," + (h.finished ? "yes" : "no") + "," +
           (h.late ? "yes" : "no") + "," + std::to_string(h.attempt) + "," +
           classroom::format_utc_time(h.received_at_unix_s) + "," + csv_field(flags) + "\n";
  }
  return {200, csv, "text/csv; charset=utf-8"};
}

ApiResponse ClassApi::compare(const std::string& class_id, const std::string& student_a, const std::string& student_b) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  const auto counted = counted_by_student(store_, *c);
  nlohmann::json sides = nlohmann::json::array();
  std::vector<std::vector<game::LoggedCommand>> logs;
  for (const auto& name : {student_a, student_b}) {
    auto it = counted.find(name);
    if (it == counted.end()) return api_error(404, "no hand-in from '" + name + "' in class " + class_id);
    const auto commands = nlohmann::json::parse(it->second.commands_json);
    std::vector<game::LoggedCommand> log;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      log.push_back(game::logged_command_from_json(commands[i], "stored", "/" + std::to_string(i)));
    }
    logs.push_back(std::move(log));
    sides.push_back({{"student", name},
                     {"counted", figures_json(it->second)},
                     {"flags", it->second.flags},
                     {"commands", commands}});
  }
  return ok_json({{"class_id", class_id},
                  {"students", sides},
                  {"command_similarity", classroom::command_log_similarity(logs[0], logs[1])}});
}

const classroom::CheckedSubmission& ClassApi::replay_of(const ClassContext& ctx, const HandInRecord& h) {
  // Called with sim_mutex_ held.
  if (auto it = replays_.find(h.id); it != replays_.end()) return it->second;
  // The standings' records carry no saves: this one's is read alone (checked when it was stored).
  std::string save_text;
  for (const auto& s : store_.hand_ins(h.class_id, h.student, /*with_saves=*/true)) {
    if (s.id == h.id) save_text = s.save_text;
  }
  const auto handed = classroom::hand_in_from_save(ctx.world, *catalog_, save_text);
  classroom::CheckedSubmission checked;
  (void)classroom::replay_submission(ctx.world, *catalog_, ctx.benchmarks, handed.commands, nullptr, checked,
                                     classroom::stopped_at_hour(h.finished, h.at_hour));
  checked.student = h.student;
  checked.file = "hand-in " + std::to_string(h.id);
  return replays_.emplace(h.id, std::move(checked)).first->second;
}

std::vector<HandInRecord> ClassApi::counted_in_order(const ClassRecord& c) {
  std::vector<HandInRecord> order;
  for (auto& [student, h] : counted_by_student(store_, c)) order.push_back(std::move(h));
  std::stable_sort(order.begin(), order.end(), [](const HandInRecord& a, const HandInRecord& b) {
    return classroom::ranks_before(figures_of(a), figures_of(b));
  });
  return order;
}

ApiResponse ClassApi::charts_html(const std::string& class_id) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  const auto order = counted_in_order(*c);
  const auto spec = classroom::class_from_json(nlohmann::json::parse(c->spec_json), "class " + c->class_id);
  std::lock_guard lock(sim_mutex_);
  const auto ctx = context(*c);
  auto data = classroom::chart_frame(ctx->world.scenario.end_hour(), ctx->world.scenario.locked_levers,
                                     ctx->benchmarks.priced_model, ctx->benchmarks.market_output_price_usd_per_mtok,
                                     ctx->benchmarks.runs);
  for (const auto& h : order) data.students.push_back(classroom::chart_run(h.student, replay_of(*ctx, h)));
  return {200, classroom::class_charts_html(classroom::class_charts(data)), "text/html; charset=utf-8"};
}

ApiResponse ClassApi::report_html(const std::string& class_id) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  const auto order = counted_in_order(*c);
  std::lock_guard lock(sim_mutex_);
  const auto ctx = context(*c);
  std::vector<classroom::CheckedSubmission> valid;
  for (const auto& h : order) valid.push_back(replay_of(*ctx, h));
  const auto report = classroom::class_report_of(ctx->world, ctx->benchmarks, std::move(valid));
  return {200, classroom::report_html(report), "text/html; charset=utf-8"};
}

ApiResponse ClassApi::briefing_html(const std::string& class_id, const std::string& base_url) {
  auto c = store_.find_class(class_id);
  if (!c) return api_error(404, "no class " + class_id);
  const auto spec = classroom::class_from_json(nlohmann::json::parse(c->spec_json), "class " + c->class_id);
  game::Scenario scenario;
  {
    std::lock_guard lock(sim_mutex_);
    scenario = context(*c)->world.scenario;
  }
  const auto e = [](const std::string& s) { return analysis::xml_escape(s); };
  std::string locks;
  for (const auto& l : scenario.locked_levers) locks += (locks.empty() ? "" : ", ") + l;
  std::string out =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + e(class_id) +
      " \u2014 briefing</title><style>body{font:15px system-ui,sans-serif;max-width:800px;margin:20px auto;color:#111}"
      "dt{font-weight:600}.slip{border:1px dashed #888;padding:10px 14px;margin:10px 0;page-break-inside:avoid}"
      "code{font-size:14px}@media print{h2.slips{page-break-before:always}}</style></head><body>\n<h1>" +
      e(spec.title.empty() ? class_id : spec.title) + "</h1>\n<h2>" + e(scenario.name) + "</h2>\n";
  if (!scenario.question.empty()) out += "<p><strong>" + e(scenario.question) + "</strong></p>\n";
  if (!scenario.briefing.empty()) out += "<p>" + e(scenario.briefing) + "</p>\n";
  out += "<dl><dt>Class</dt><dd>" + e(class_id) + " (seed " + std::to_string(spec.seed) + ", " +
         std::to_string(spec.days) + " game day" + (spec.days == 1 ? "" : "s") + ", advisor " +
         (spec.advisor ? "on" : "off") + ")</dd><dt>Locked levers</dt><dd>" + e(locks.empty() ? "none" : locks) +
         "</dd><dt>Hand-ins</dt><dd>as often as you like: " +
         e(classroom::policy_sentence(classroom::parse_attempt_policy(c->attempt_policy), c->deadline_unix_s,
                                      classroom::parse_late_policy(c->late_policy))) +
         "</dd></dl>\n<p>Open your own link (below): the game starts this class, and hands your game in "
         "when it ends; <em>Hand in</em> (bottom right) hands it in at any time, finished or not.</p>\n"
         "<h2 class=\"slips\">Links, one per student (cut along the lines; each link is personal)</h2>\n";
  for (const auto& st : store_.students(class_id)) {
    out += "<div class=\"slip\"><strong>" + e(st.student) + "</strong> \u2014 " + e(class_id) + "<br><code>" +
           e(base_url + "/?code=" + st.code) + "</code></div>\n";
  }
  out += "</body></html>\n";
  return {200, out, "text/html; charset=utf-8"};
}

ApiResponse ClassApi::student_class(const std::string& code) {
  auto s = student_of(code);
  if (!s) return api_error(401, "that is no student's code on this server");
  auto c = store_.find_class(s->class_id);
  if (!c) return api_error(404, "no class " + s->class_id);
  store_.mark_started(s->class_id, s->student, now_unix_s_());
  const auto spec = classroom::class_from_json(nlohmann::json::parse(c->spec_json), "class " + c->class_id);
  game::Scenario scenario;
  {
    std::lock_guard lock(sim_mutex_);
    scenario = context(*c)->world.scenario;
  }
  nlohmann::json out = {
      {"student", s->student},
      {"class", classroom::to_json(spec)},
      {"link_query", classroom::class_link_query(spec)},
      {"scenario_name", scenario.name},
      {"briefing", scenario.briefing},
      {"question", scenario.question},
      {"policy", policy_json(*c)},
      {"policy_text", classroom::policy_sentence(classroom::parse_attempt_policy(c->attempt_policy), c->deadline_unix_s,
                                                 classroom::parse_late_policy(c->late_policy))},
      {"attempts_so_far", store_.hand_ins(s->class_id, s->student).size()}};
  // The answer key stays hidden until the deadline (classroom::briefing_key).
  const auto key = classroom::briefing_key(scenario, c->deadline_unix_s, now_unix_s_());
  if (key.lesson) out["lesson"] = *key.lesson;
  if (key.reference_strategy) out["reference_strategy"] = *key.reference_strategy;
  return ok_json(out);
}

ApiResponse ClassApi::hand_in(const std::string& code, const std::string& save_text) {
  auto s = student_of(code);
  if (!s) return api_error(401, "that is no student's code on this server");
  auto c = store_.find_class(s->class_id);
  if (!c) return api_error(404, "no class " + s->class_id);
  const bool late = deadline_passed(*c);
  if (classroom::hand_in_refused(classroom::parse_late_policy(c->late_policy), c->deadline_unix_s, now_unix_s_())) {
    return api_error(403, "the deadline (" + classroom::format_utc_time(*c->deadline_unix_s) + ") has passed: class " +
                              c->class_id + " takes no more hand-ins");
  }
  std::lock_guard lock(sim_mutex_);
  std::shared_ptr<const ClassContext> ctx;
  try {
    ctx = context(*c);
  } catch (const std::exception& e) {
    return api_error(500, std::string("the class's world cannot be set up on this server: ") + e.what());
  }
  classroom::HandIn h;
  try {
    h = classroom::hand_in_from_save(ctx->world, *catalog_, save_text);
  } catch (const classroom::NotThisClassError& e) {
    return api_error(422, e.what());
  } catch (const core::InputError& e) {
    return api_error(400, e.what());
  }
  classroom::CheckedSubmission checked;
  // The replay `class report` gives every submission: its figures are the ones that count.
  (void)classroom::replay_submission(ctx->world, *catalog_, ctx->benchmarks, h.commands, nullptr, checked,
                                     classroom::stopped_at_hour(h.finished, h.at_hour));

  HandInRecord r;
  r.class_id = c->class_id;
  r.student = s->student;
  r.received_at_unix_s = now_unix_s_();
  r.save_text = save_text;
  nlohmann::json commands = nlohmann::json::array();
  for (const auto& cmd : h.commands) commands.push_back(game::to_json(cmd));
  r.commands_json = commands.dump();
  r.at_hour = h.at_hour;
  r.end_hour = h.end_hour;
  r.finished = h.finished;
  r.late = late;
  r.score_points = checked.summary.score.points;
  r.stars = checked.summary.score.stars;
  r.profit_usd = checked.summary.profit_usd;
  r.slo_attainment = checked.summary.slo_attainment;
  r.num_commands = static_cast<std::int64_t>(h.commands.size());

  // Near-identical command logs from another student: flagged on both sides, once per pair.
  const auto stored = store_.hand_ins(c->class_id);
  std::vector<classroom::EarlierHandIn> earlier;
  for (const auto& other : stored) {
    classroom::EarlierHandIn e{other.student, other.attempt, {}};
    if (other.student != s->student) {
      const auto j = nlohmann::json::parse(other.commands_json);
      for (std::size_t i = 0; i < j.size(); ++i) {
        e.commands.push_back(game::logged_command_from_json(j[i], "stored", "/" + std::to_string(i)));
      }
    }
    earlier.push_back(std::move(e));
  }
  std::vector<FlagUpdate> updates;
  for (auto& f : classroom::copy_flags(s->student, h.commands, earlier)) {
    r.flags.push_back(std::move(f.on_new));
    updates.push_back({stored[f.earlier].id, std::move(f.on_earlier)});
  }
  try {
    r = store_.add_hand_in(std::move(r), updates, before_hand_in_commit);
  } catch (const StoreError& e) {
    return api_error(500, std::string("the hand-in was not stored (nothing changed): ") + e.what());
  }
  checked.student = r.student;
  checked.file = "hand-in " + std::to_string(r.id);
  replays_.emplace(r.id, std::move(checked));
  nlohmann::json out = figures_json(r);
  out["student"] = r.student;
  out["class_id"] = r.class_id;
  out["attempts_policy"] = c->attempt_policy;
  out["receipt"] = classroom::hand_in_receipt(
      {r.attempt, r.finished, r.at_hour, r.end_hour, r.late, r.score_points, r.profit_usd, r.slo_attainment});
  return ok_json(out, 201);
}

ApiResponse ClassApi::student_hand_ins(const std::string& code) {
  auto s = student_of(code);
  if (!s) return api_error(401, "that is no student's code on this server");
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : store_.hand_ins(s->class_id, s->student)) out.push_back(figures_json(h));
  return ok_json({{"student", s->student}, {"class_id", s->class_id}, {"hand_ins", out}});
}

}  // namespace tycoon::server
