// `tycoon class serve [--port N] [--db FILE] [--web DIR] [--host ADDR]`: starts the class server,
// prints where it listens and the instructor's token, and serves until interrupted.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/class_serve.h"
#include "cli/common.h"
#include "server/class_server.h"
#include "server/store.h"
#include "sim/core/input_error.h"

namespace tycoon::cli {

namespace {

struct ServeOptions {
  int port = 8080;
  std::string db = "tycoon-class.sqlite";
  std::string web;
  std::string host = "0.0.0.0";
};

int run_serve(const ServeOptions& o, const GlobalOptions& global) {
  if (!o.web.empty() && !std::filesystem::is_regular_file(std::filesystem::path(o.web) / "index.html")) {
    throw core::InputError(
        "--web: " + o.web +
        " has no index.html (the browser build's folder: scripts/web --build-only makes build-web/)");
  }
  if (std::filesystem::is_directory(o.db)) throw core::InputError("--db: " + o.db + " is a folder");
  server::ServerOptions options;
  options.host = o.host;
  options.port = o.port;
  options.db_file = o.db;
  options.web_dir = o.web;
  options.data_root = global.data_root.empty() ? data::default_data_root() : std::filesystem::path(global.data_root);
  auto catalog = std::make_shared<const data::Catalog>(load_catalog_for(global));
  // Ctrl-C or a TERM signal stops the server cleanly (the database closed, its WAL checkpointed):
  // the signals are blocked in every thread, and one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::unique_ptr<server::ClassServer> made;
  try {
    made = std::make_unique<server::ClassServer>(options, catalog);
  } catch (const server::StoreError& e) {
    throw core::InputError(std::string("--db: ") + e.what());
  } catch (const server::ListenError& e) {
    throw core::InputError(std::string("--port: ") + e.what());
  }
  auto& srv = *made;
  char host[256] = "localhost";
  if (o.host == "0.0.0.0") gethostname(host, sizeof host - 1);
  const std::string shown = o.host == "0.0.0.0" ? std::string(host) : o.host;
  const std::string base = "http://" + shown + ":" + std::to_string(srv.port());
  std::printf("class server on %s/ (listening on %s:%d; database %s, schema version %d)\n", base.c_str(),
              o.host.c_str(), srv.port(), o.db.c_str(), srv.store().schema_version());
  std::printf("  instructor page: %s/instructor#token=%s\n", base.c_str(), srv.instructor_token().c_str());
  std::printf("  instructor token: %s   (the API's Authorization: Bearer TOKEN; keep it private)\n",
              srv.instructor_token().c_str());
  if (o.web.empty()) {
    std::printf("  no --web folder: the API only (students' links need the browser build)\n");
  } else {
    std::printf("  browser game from %s: a student's link is %s/?code=CODE\n", o.web.c_str(), base.c_str());
  }
  std::printf("  Ctrl-C stops it; everything is kept in %s\n", o.db.c_str());
  std::fflush(stdout);
  std::atomic<bool> signalled{false};
  std::thread waiter([&srv, &stop_signals, &signalled] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    signalled = true;
    srv.stop();
  });
  srv.run();
  if (!signalled) pthread_kill(waiter.native_handle(), SIGTERM);  // stopped otherwise: release the waiter
  waiter.join();
  std::printf("class server stopped; everything is in %s\n", o.db.c_str());
  return kExitOk;
}

}  // namespace

ClassServeCommand add_class_serve_command(CLI::App& cls, const GlobalOptions& global) {
  auto o = std::make_shared<ServeOptions>();
  auto* sv = cls.add_subcommand("serve",
                                "Serve classes over HTTP: roster, students' hand-ins (replayed as class report does), "
                                "leaderboard, gradebook CSV; and the browser game (--web)");
  sv->add_option("--port", o->port, "The port (default 8080; 0: any free one)")->check(CLI::Range(0, 65535));
  sv->add_option("--db", o->db, "The SQLite file of classes, rosters and hand-ins (default tycoon-class.sqlite)");
  sv->add_option("--web", o->web, "The browser build's folder to serve (build-web after scripts/web --build-only)");
  sv->add_option("--host", o->host, "The address to listen on (default 0.0.0.0: every interface)");
  return {sv, [o, &global] { return run_serve(*o, global); }};
}

}  // namespace tycoon::cli
