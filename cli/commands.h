// The `tycoon` subcommands. Each registers its options on the CLI11 app and returns an exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tycoon::cli {

// Options every command shares.
struct GlobalOptions {
  std::string data_root;                  // catalog root; empty = built-in default
  std::vector<std::string> command_line;  // argv as given, for "resume with: ..." hints
};

// Exit codes: 0 success, 1 internal failure, 2 bad input (flags, files, ids).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
// Stopped by SIGINT (Ctrl-C) after saving what can be resumed: 128 + SIGINT, as a shell reports it.
inline constexpr int kExitInterrupted = 130;

using CommandRunner = std::function<int()>;

CommandRunner add_list_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_predict_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_benchmark_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_run_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_fit_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_validate_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_advise_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_sweep_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_balance_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_class_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_soak_command(CLI::App& app, const GlobalOptions& global);
CommandRunner add_export_command(CLI::App& app, const GlobalOptions& global);

// The whole command line: parses argv, runs the chosen command, maps errors to exit codes.
// `may_run`, when given, is asked with the command's name before it runs; false: parse only
// (the CLI fuzz target runs only the fast commands).
int run_tycoon(int argc, char** argv, const std::function<bool(const std::string&)>& may_run = {});

}  // namespace tycoon::cli
