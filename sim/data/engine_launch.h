// What `tycoon export` needs to know of each engine's command line, as published: the server's
// documented argument names at the version they were read at, the closed sets of values some of
// them take, the engine's container image and benchmark client, how it splits prefill and decode;
// and which Hugging Face repository serves each model (and its draft model for speculative
// decoding). Facts from outside: every file names the source of each (hardware_db/engines/launch/).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tycoon::data {

struct EngineLaunch {
  std::string file;
  std::string engine;           // an engine id of hardware_db/engines/
  std::string checked_version;  // the release (or series) whose arguments were read
  std::string checked_commit;
  std::vector<std::string> server_command;                  // argv prefix that starts the OpenAI-compatible server
  std::string model_argument;                               // "": the model is positional; else its flag
  std::set<std::string> arguments;                          // every documented server argument name ("--tp-size")
  std::map<std::string, std::vector<std::string>> choices;  // closed value sets, by argument
  std::vector<std::string> bench_command;                   // the engine's own serving benchmark client
  std::set<std::string> bench_arguments;                    // empty: not read (the plan says so)
  std::string image;                                        // "": no image tag verified
  std::map<std::string, std::string> extra_options;         // TensorRT-LLM: YAML keys of the LLM API options
  struct Disaggregation {
    std::string how;
    std::set<std::string> arguments;
    std::map<std::string, std::string> connector;  // vLLM: the --kv-transfer-config JSON
    std::string source;
  } disaggregation;
  // vLLM: NVIDIA Dynamo's DynamoGraphDeployment for a split deployment (its example's shape).
  struct Dynamo {
    std::string api_version, kind, image;
    std::vector<std::string> worker_command;
    std::set<std::string> worker_arguments;  // the worker's own; the rest are vLLM's engine arguments
    std::string source;
  };
  std::optional<Dynamo> dynamo;
  std::map<std::string, std::string> sources;

  bool documents(const std::string& argument) const { return arguments.count(argument) > 0; }
  // True when `argument` takes a closed set of values and `value` is one of them, or when it does not.
  bool accepts(const std::string& argument, const std::string& value) const;
};

struct ModelRepos {
  std::string file;
  struct Repo {
    std::string repo;
    std::string source;
  };
  struct Draft {
    std::string method;  // "eagle3", "mtp"
    std::string repo;
    std::string source;
  };
  std::map<std::string, Repo> models;  // by model id
  std::map<std::string, Draft> drafts;
};

// hardware_db/engines/launch/<engine>.json; throws LoadError (file, pointer, reason), or
// UnknownIdError when the engine has no such file.
EngineLaunch load_engine_launch(const std::filesystem::path& data_root, const std::string& engine);
// hardware_db/engines/launch/models.json.
ModelRepos load_model_repos(const std::filesystem::path& data_root);

}  // namespace tycoon::data
