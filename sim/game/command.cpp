#include "sim/game/command.h"
#include "sim/game/tutorial.h"

#include <fstream>
#include <sstream>

#include "sim/core/input_file.h"

namespace tycoon::game {

namespace {

using data::Bound;

int read_count(data::ObjectReader& in, std::string_view key, Bound bound) {
  auto v = in.integer(key, bound);
  if (v > 1'000'000) in.fail(key, "must be at most 1000000");
  return static_cast<int>(v);
}

}  // namespace

nlohmann::json to_json(const Command& c) {
  nlohmann::json j = {{"type", command_name(c)}};
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, RentGpus>) {
          j["chip"] = x.chip;
          j["contract"] = to_string(x.contract);
          j["num_gpus"] = x.num_gpus;
        } else if constexpr (std::is_same_v<T, ReleaseGpus>) {
          j["contract_id"] = x.contract_id;
          if (x.num_gpus) j["num_gpus"] = *x.num_gpus;
        } else if constexpr (std::is_same_v<T, Deploy>) {
          j["model"] = x.model;
          j["chip"] = x.chip;
          if (x.segment) j["segment"] = *x.segment;
          j["replicas"] = x.replicas;
          j["recipe"] = to_json(x.recipe);
          if (x.decode) {
            j["decode"] = {{"chip", x.decode->chip},
                           {"replicas", x.decode->replicas},
                           {"recipe", to_json(x.decode->recipe)},
                           {"link", serving::kKvLinkNames[static_cast<std::size_t>(x.decode->link)]}};
          }
        } else if constexpr (std::is_same_v<T, Undeploy>) {
          j["deployment_id"] = x.deployment_id;
        } else if constexpr (std::is_same_v<T, ChangeRecipe>) {
          j["deployment_id"] = x.deployment_id;
          j["recipe"] = to_json(x.recipe);
        } else if constexpr (std::is_same_v<T, ScaleReplicas>) {
          j["deployment_id"] = x.deployment_id;
          j["replicas"] = x.replicas;
          if (x.decode_replicas) j["decode_replicas"] = *x.decode_replicas;
        } else if constexpr (std::is_same_v<T, SetPrices>) {
          j["model"] = x.model;
          if (x.input_usd_per_mtok) j["input_usd_per_mtok"] = *x.input_usd_per_mtok;
          if (x.cached_input_usd_per_mtok) j["cached_input_usd_per_mtok"] = *x.cached_input_usd_per_mtok;
          if (x.output_usd_per_mtok) j["output_usd_per_mtok"] = *x.output_usd_per_mtok;
        } else if constexpr (std::is_same_v<T, AcceptAdvice> || std::is_same_v<T, RejectAdvice> ||
                             std::is_same_v<T, RevertAdvice>) {
          j["advice_id"] = x.advice_id;
        } else if constexpr (std::is_same_v<T, Advance>) {
          j["hours"] = x.hours;
        } else if constexpr (std::is_same_v<T, CheckAdvice>) {
          j["advice_id"] = x.advice_id;
          j["check"] = kAdviceCheckKindNames[static_cast<std::size_t>(x.check)];
          if (x.repetitions > 0) j["repetitions"] = x.repetitions;
        } else if constexpr (std::is_same_v<T, ViewPanel>) {
          j["panel"] = x.panel;
        }
      },
      c);
  return j;
}

Command command_from_json(data::ObjectReader& in) {
  switch (in.choice("type", kCommandNames)) {
    case 0:
      return RentGpus{in.string("chip"), static_cast<Contract>(in.choice("contract", kContractNames)),
                      read_count(in, "num_gpus", Bound::kPositive)};
    case 1: {
      ReleaseGpus r{in.integer("contract_id", Bound::kPositive), std::nullopt};
      if (in.has("num_gpus")) r.num_gpus = read_count(in, "num_gpus", Bound::kPositive);
      return r;
    }
    case 2: {
      Deploy d;
      d.model = in.string("model");
      d.chip = in.string("chip");
      d.segment = in.optional_string("segment");
      d.replicas = in.has("replicas") ? read_count(in, "replicas", Bound::kPositive) : 1;
      if (auto r = in.optional_object("recipe")) {
        d.recipe = read_overrides(*r);
        r->finish();
      }
      if (auto dec = in.optional_object("decode")) {
        DecodePoolSpec p;
        p.chip = dec->string("chip");
        p.replicas = dec->has("replicas") ? read_count(*dec, "replicas", Bound::kPositive) : 1;
        if (auto r = dec->optional_object("recipe")) {
          p.recipe = read_overrides(*r);
          r->finish();
        }
        if (dec->has("link")) p.link = static_cast<serving::KvLinkKind>(dec->choice("link", serving::kKvLinkNames));
        dec->finish();
        d.decode = std::move(p);
      }
      return d;
    }
    case 3:
      return Undeploy{in.integer("deployment_id", Bound::kPositive)};
    case 4: {
      ChangeRecipe c{in.integer("deployment_id", Bound::kPositive), {}};
      auto r = in.object("recipe");
      c.recipe = read_overrides(r);
      r.finish();
      return c;
    }
    case 5: {
      ScaleReplicas c{in.integer("deployment_id", Bound::kPositive), read_count(in, "replicas", Bound::kNonNegative),
                      std::nullopt};
      if (in.has("decode_replicas")) c.decode_replicas = read_count(in, "decode_replicas", Bound::kNonNegative);
      return c;
    }
    case 6: {
      SetPrices p;
      p.model = in.string("model");
      p.input_usd_per_mtok = in.optional_number("input_usd_per_mtok", Bound::kNonNegative);
      p.cached_input_usd_per_mtok = in.optional_number("cached_input_usd_per_mtok", Bound::kNonNegative);
      p.output_usd_per_mtok = in.optional_number("output_usd_per_mtok", Bound::kNonNegative);
      return p;
    }
    case 7:
      return AcceptAdvice{in.string("advice_id")};
    case 8:
      return RejectAdvice{in.string("advice_id")};
    case 10: {
      CheckAdvice c{in.string("advice_id"), AdviceCheckKind::kBenchmark};
      c.check = static_cast<AdviceCheckKind>(in.choice("check", kAdviceCheckKindNames));
      if (auto reps = in.optional_integer("repetitions", Bound::kPositive)) {
        if (*reps > kMaxCheckRepetitions) in.fail("repetitions", "more than " + std::to_string(kMaxCheckRepetitions));
        c.repetitions = static_cast<int>(*reps);
      }
      return c;
    }
    case 11:
      return ViewPanel{std::string(kPanelNames[in.choice("panel", kPanelNames)])};
    case 12:
      return RevertAdvice{in.string("advice_id")};
    default:
      return Advance{read_count(in, "hours", Bound::kPositive)};
  }
}

nlohmann::json to_json(const LoggedCommand& c) {
  nlohmann::json j = to_json(c.command);
  j["at_hour"] = c.at_hour;
  return j;
}

LoggedCommand logged_command_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer) {
  data::ObjectReader in(j, file, pointer);
  LoggedCommand c;
  c.at_hour = in.integer("at_hour", Bound::kNonNegative);
  c.command = command_from_json(in);
  in.finish();
  return c;
}

std::string to_jsonl(const std::vector<LoggedCommand>& log) {
  std::string out;
  for (const auto& c : log) out += to_json(c).dump() + "\n";
  return out;
}

std::vector<LoggedCommand> parse_command_log(std::string_view text, const std::string& name) {
  std::vector<LoggedCommand> out;
  std::istringstream in{std::string(text)};
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::string where = name + ":" + std::to_string(n);
    auto j = data::parse_json_text(line, where);
    auto c = logged_command_from_json(j, where, "");
    if (!out.empty() && c.at_hour < out.back().at_hour) {
      throw data::LoadError(
          where, "/at_hour",
          "goes back in time (" + std::to_string(c.at_hour) + " after " + std::to_string(out.back().at_hour) + ")");
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<LoggedCommand> read_command_log(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw data::LoadError(path.string(), "", "is a folder, not a command log (a JSONL file)");
  }
  std::string text;
  try {
    text = core::read_input_file(path, core::kCommandLogInput);
  } catch (const core::FileReadError& e) {
    throw data::LoadError(e.file(), "", e.reason());
  }
  return parse_command_log(text, path.string());
}

}  // namespace tycoon::game
