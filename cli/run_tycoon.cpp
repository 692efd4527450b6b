// The `tycoon` command line as a function: parses argv, runs the chosen command and maps
// exceptions to exit codes (2 bad input, 1 internal failure). main.cpp calls it; so does the
// CLI fuzz target (tests/fuzz/fuzz_cli.cpp), which runs only the fast commands.
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/version.h"
#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"
#include "sim/game/save.h"

namespace tycoon::cli {

int run_tycoon(int argc, char** argv, const std::function<bool(const std::string&)>& may_run) {
  CLI::App app{"Inference Tycoon: an economic simulator of LLM inference serving", "tycoon"};
  app.require_subcommand(1);
  // `tycoon --version`: the version and the git commit it was built from (sim/core/version.h).
  app.set_version_flag("--version", "tycoon " + core::version_line(),
                       "Print the version and the git commit, then exit");
  GlobalOptions global;
  global.command_line.assign(argv, argv + argc);
  app.add_option("--data", global.data_root, "Folder holding models/ and hardware_db/ (default: the source tree)");

  std::map<CLI::App*, CommandRunner> runners;
  auto add = [&](CommandRunner r) { runners[app.get_subcommands({}).back()] = std::move(r); };
  add(add_list_command(app, global));
  add(add_predict_command(app, global));
  add(add_benchmark_command(app, global));
  add(add_run_command(app, global));
  add(add_fit_command(app, global));
  add(add_validate_command(app, global));
  add(add_advise_command(app, global));
  add(add_sweep_command(app, global));
  add(add_balance_command(app, global));
  add(add_class_command(app, global));
  add(add_soak_command(app, global));
  add(add_export_command(app, global));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string what = e.what();
    for (auto& c : what) {
      if (c == '\n') c = ' ';
    }
    std::cerr << "tycoon: error: " << what << " (see tycoon --help)\n";
    return kExitBadInput;
  }

  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return may_run && !may_run(sub->get_name()) ? kExitOk : run();
    }
  } catch (const tycoon::data::LoadError& e) {
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tycoon::data::UnknownIdError& e) {
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tycoon::game::SaveWriteError& e) {  // a full disk is not bad input
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const tycoon::core::FileWriteError& e) {
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const tycoon::game::SaveError& e) {
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tycoon::core::InputError& e) {  // bad input, named by sim/ or the CLI
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    // The older convention for bad input, kept for checks not yet converted to core::InputError;
    // sim/ throws std::logic_error / std::runtime_error for its own faults (exit 1 below).
    std::cerr << "tycoon: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tycoon: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitFailure;
}

}  // namespace tycoon::cli
