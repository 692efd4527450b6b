// The browser build has no class server (no sockets, no SQLite): `class serve` is not added.
#include "cli/class_serve.h"

namespace tycoon::cli {

ClassServeCommand add_class_serve_command(CLI::App&, const GlobalOptions&) { return {}; }

}  // namespace tycoon::cli
