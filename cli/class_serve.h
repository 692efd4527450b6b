// `tycoon class serve`: the class server (server/class_server.h) from the command line. Native
// builds only: the browser build's CLI links class_serve_none.cpp, which adds no subcommand.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace tycoon::cli {

struct ClassServeCommand {
  CLI::App* app = nullptr;  // null where there is no server
  CommandRunner run;
};
ClassServeCommand add_class_serve_command(CLI::App& cls, const GlobalOptions& global);

}  // namespace tycoon::cli
