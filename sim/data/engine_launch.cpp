#include "sim/data/engine_launch.h"

#include <algorithm>

#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"

namespace tycoon::data {

namespace {

std::filesystem::path launch_folder(const std::filesystem::path& root) { return root / "hardware_db/engines/launch"; }

// An object of strings (sources, YAML keys, connector fields).
std::map<std::string, std::string> string_map(ObjectReader& r, std::string_view key) {
  std::map<std::string, std::string> out;
  const auto& v = r.raw(key);
  if (!v.is_object()) r.fail(key, "expected an object of strings");
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it->is_string()) r.fail(key, "'" + it.key() + "' must be a string");
    out[it.key()] = it->get<std::string>();
  }
  return out;
}

// Argument names: each a flag ("--x", "-x") or a subcommand word, none twice.
std::set<std::string> argument_set(ObjectReader& r, std::string_view key) {
  const auto list = r.string_array(key);
  std::set<std::string> out(list.begin(), list.end());
  if (out.size() != list.size()) r.fail(key, "an argument is listed twice");
  return out;
}

}  // namespace

bool EngineLaunch::accepts(const std::string& argument, const std::string& value) const {
  auto it = choices.find(argument);
  return it == choices.end() || std::find(it->second.begin(), it->second.end(), value) != it->second.end();
}

EngineLaunch load_engine_launch(const std::filesystem::path& data_root, const std::string& engine) {
  const auto path = launch_folder(data_root) / (engine + ".json");
  if (!std::filesystem::exists(path)) {
    throw UnknownIdError("no launch facts for engine '" + engine + "' (" + path.string() +
                         "): tycoon export knows vllm, sglang and trtllm");
  }
  const auto j = parse_json_file(path);
  EngineLaunch e;
  e.file = path.string();
  ObjectReader r(j, e.file, "");
  e.engine = r.string("engine");
  if (e.engine != engine) r.fail("engine", "is '" + e.engine + "', the file is named for '" + engine + "'");
  e.checked_version = r.string("checked_version");
  e.checked_commit = r.string("checked_commit");
  e.server_command = r.string_array("server_command");
  if (e.server_command.empty()) r.fail("server_command", "must not be empty");
  e.model_argument = r.string("model_argument");
  e.arguments = argument_set(r, "arguments");
  if (e.arguments.empty()) r.fail("arguments", "must not be empty");
  {
    const auto& c = r.raw("choices");
    if (!c.is_object()) r.fail("choices", "expected an object of string arrays");
    for (auto it = c.begin(); it != c.end(); ++it) {
      ObjectReader one(c, e.file, "/choices");
      e.choices[it.key()] = one.string_array(it.key());
    }
  }
  e.bench_command = r.string_array("bench_command");
  e.bench_arguments = argument_set(r, "bench_arguments");
  e.image = r.string("image");
  e.extra_options = string_map(r, "extra_options");
  {
    auto d = r.object("disaggregation");
    e.disaggregation.how = d.string("how");
    e.disaggregation.arguments = argument_set(d, "arguments");
    if (d.has("connector")) e.disaggregation.connector = string_map(d, "connector");
    e.disaggregation.source = d.string("source");
    d.finish();
  }
  if (auto d = r.optional_object("dynamo")) {
    EngineLaunch::Dynamo dy;
    dy.api_version = d->string("api_version");
    dy.kind = d->string("kind");
    dy.image = d->string("image");
    dy.worker_command = d->string_array("worker_command");
    dy.worker_arguments = argument_set(*d, "worker_arguments");
    dy.source = d->string("source");
    d->finish();
    e.dynamo = std::move(dy);
  }
  e.sources = string_map(r, "sources");
  if (!e.sources.count("arguments")) r.fail("sources", "must name the source of 'arguments'");
  r.finish();
  return e;
}

ModelRepos load_model_repos(const std::filesystem::path& data_root) {
  const auto path = launch_folder(data_root) / "models.json";
  const auto j = parse_json_file(path);
  ModelRepos m;
  m.file = path.string();
  ObjectReader r(j, m.file, "");
  {
    const auto& models = r.raw("models");
    if (!models.is_object()) r.fail("models", "expected an object");
    for (auto it = models.begin(); it != models.end(); ++it) {
      ObjectReader one(*it, m.file, "/models/" + escape_pointer_token(it.key()));
      m.models[it.key()] = {one.string("repo"), one.string("source")};
      one.finish();
    }
  }
  {
    const auto& drafts = r.raw("drafts");
    if (!drafts.is_object()) r.fail("drafts", "expected an object");
    for (auto it = drafts.begin(); it != drafts.end(); ++it) {
      ObjectReader one(*it, m.file, "/drafts/" + escape_pointer_token(it.key()));
      m.drafts[it.key()] = {one.string("method"), one.string("repo"), one.string("source")};
      one.finish();
    }
  }
  r.finish();
  return m;
}

}  // namespace tycoon::data
