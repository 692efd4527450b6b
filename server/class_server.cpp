#include "server/class_server.h"

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "server/class_api.h"
#include "server/instructor_page.h"
#include "server/store.h"

namespace tycoon::server {

namespace detail {

// A token bucket per client address.
class RateLimiter {
 public:
  RateLimiter(int burst, double per_s) : burst_(burst), per_s_(per_s) {}
  bool allow(const std::string& client) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    if (buckets_.size() > kMaxClients) buckets_.clear();  // a flood of addresses forgets, never grows
    auto [it, fresh] = buckets_.try_emplace(client, Bucket{static_cast<double>(burst_), now});
    auto& b = it->second;
    if (!fresh) {
      b.tokens = std::min<double>(burst_, b.tokens + per_s_ * std::chrono::duration<double>(now - b.last).count());
      b.last = now;
    }
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

 private:
  static constexpr std::size_t kMaxClients = 100'000;
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point last;
  };
  int burst_;
  double per_s_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace detail

namespace {

// Equal strings, compared in a time that does not depend on where they differ.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string random_token(std::random_device& device) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    auto word = device();
    for (int k = 0; k < 8; ++k, word >>= 4) out += kHex[word & 15u];
  }
  return out;  // 256 bits: 64 hex digits from 8 draws of 32 bits
}

void send(httplib::Response& res, const ApiResponse& r) {
  res.status = r.status;
  res.set_content(r.body, r.content_type.c_str());
}

}  // namespace

struct ClassServer::Impl {
  ServerOptions options;
  std::shared_ptr<const data::Catalog> catalog;
  Store store;
  std::random_device device;
  std::string token;
  ClassApi api;
  detail::RateLimiter limiter;
  httplib::Server http;
  int port = 0;
  std::thread thread;

  Impl(ServerOptions o, std::shared_ptr<const data::Catalog> c)
      : options(std::move(o)),
        catalog(std::move(c)),
        store(options.db_file),
        token(store.instructor_token([this] { return random_token(device); })),
        api(store, catalog, options.data_root,
            options.now_unix_s ? options.now_unix_s
                               : [] {
                                   return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                                                        std::chrono::system_clock::now().time_since_epoch())
                                                                        .count());
                                 },
            [this] { return (std::uint64_t{device()} << 32) | device(); }),
        limiter(options.rate_burst, options.rate_per_s) {}

  bool instructor(const httplib::Request& req, httplib::Response& res) {
    const std::string auth = req.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    if (auth.rfind(prefix, 0) == 0 && same_secret(auth.substr(prefix.size()), token)) return true;
    send(res, api_error(401, auth.empty() ? "this needs the instructor's token (Authorization: Bearer TOKEN)"
                                          : "wrong instructor token"));
    return false;
  }
  // The files of the browser build a student's link loads (scripts/web's output).
  static bool is_web_file(const std::string& path) {
    for (const char* f : {"/", "/index.html", "/index.js", "/index.wasm", "/index.data"}) {
      if (path == f) return true;
    }
    return false;
  }

  static std::string code_of(const httplib::Request& req) {
    const auto h = req.get_header_value("X-Student-Code");
    return h.empty() ? req.get_param_value("code") : h;
  }

  void routes() {
    // SO_REUSEADDR (a restart rebinds at once) but not cpp-httplib's default SO_REUSEPORT, with
    // which a second server on the same port would bind too and take half the requests.
    http.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof yes);
    });
    http.set_payload_max_length(options.max_body_bytes);
    http.set_read_timeout(10, 0);
    http.set_write_timeout(10, 0);
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Cache-Control", "no-store");
      // The browser build's own files: served to anyone, never rate-limited (a class behind one
      // address opens its links at once: five files each); nothing else of --web's folder (a
      // build folder holds CMakeCache.txt and more).
      const bool api_path = req.path.rfind("/api/", 0) == 0;
      if (!api_path && req.path != "/instructor") {
        if (is_web_file(req.path)) return httplib::Server::HandlerResponse::Unhandled;
        send(res, api_error(404, "no such page"));
        return httplib::Server::HandlerResponse::Handled;
      }
      if (limiter.allow(req.remote_addr)) return httplib::Server::HandlerResponse::Unhandled;
      send(res, api_error(429, "too many requests from " + req.remote_addr + ": wait a second and try again"));
      return httplib::Server::HandlerResponse::Handled;
    });
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      if (res.status == 413) {
        // cpp-httplib reads a form-encoded body only up to CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH.
        const bool form = req.get_header_value("Content-Type") == "application/x-www-form-urlencoded";
        send(res,
             api_error(413, form ? "a form-encoded body is limited to " +
                                       std::to_string(CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH) +
                                       " bytes: send the save as Content-Type: application/json"
                                 : "the request body is over " + std::to_string(options.max_body_bytes) + " bytes"));
      } else if (res.status == 404) {
        send(res, api_error(404, "no such page"));
      } else {
        send(res, api_error(res.status, "the request was refused (HTTP " + std::to_string(res.status) + ")"));
      }
    });
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "unknown";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      send(res, api_error(500, "the server failed (nothing was stored): " + what));
    });

    http.Get("/instructor", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(instructor_page_html()), "text/html; charset=utf-8");
    });
    // Any one path segment: the API answers 404 for an id no class has (a class's id passed
    // data::is_safe_id when it was made), so the header below only ever names a safe id.
    const std::string cls = R"(/api/classes/([^/]{1,256}))";
    http.Post("/api/classes", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res)) send(res, api.create_class(req.body));
    });
    http.Get("/api/classes", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res)) send(res, api.list_classes());
    });
    http.Post(cls + "/roster", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res))
        send(res, api.add_roster(req.matches[1], req.body, req.get_header_value("Content-Type")));
    });
    http.Put(cls + "/policy", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res)) send(res, api.set_policy(req.matches[1], req.body));
    });
    http.Get(cls + "/leaderboard", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res)) send(res, api.leaderboard(req.matches[1]));
    });
    http.Get(cls + "/gradebook.csv", [this](const httplib::Request& req, httplib::Response& res) {
      if (!instructor(req, res)) return;
      send(res, api.gradebook_csv(req.matches[1]));
      if (res.status == 200) {
        res.set_header("Content-Disposition", "attachment; filename=\"" + req.matches[1].str() + "-gradebook.csv\"");
      }
    });
    http.Get(cls + "/briefing.html", [this](const httplib::Request& req, httplib::Response& res) {
      if (!instructor(req, res)) return;
      const std::string host = req.get_header_value("Host");
      send(res, api.briefing_html(req.matches[1], "http://" + (host.empty() ? std::string("localhost") : host)));
    });
    http.Get(cls + "/charts.html", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res)) send(res, api.charts_html(req.matches[1]));
    });
    http.Get(cls + "/report.html", [this](const httplib::Request& req, httplib::Response& res) {
      if (instructor(req, res)) send(res, api.report_html(req.matches[1]));
    });
    http.Get(cls + "/compare", [this](const httplib::Request& req, httplib::Response& res) {
      if (!instructor(req, res)) return;
      if (!req.has_param("a") || !req.has_param("b")) {
        return send(res, api_error(400, "compare needs ?a=NAME&b=NAME (two students)"));
      }
      send(res, api.compare(req.matches[1], req.get_param_value("a"), req.get_param_value("b")));
    });
    http.Get("/api/student/class", [this](const httplib::Request& req, httplib::Response& res) {
      send(res, api.student_class(code_of(req)));
    });
    http.Post("/api/student/hand-in", [this](const httplib::Request& req, httplib::Response& res) {
      send(res, api.hand_in(code_of(req), req.body));
    });
    http.Get("/api/student/hand-ins", [this](const httplib::Request& req, httplib::Response& res) {
      send(res, api.student_hand_ins(code_of(req)));
    });
    if (!options.web_dir.empty()) {
      if (!std::filesystem::is_regular_file(options.web_dir / "index.html")) {
        throw std::runtime_error("--web: " + options.web_dir.string() +
                                 " has no index.html (build the browser version first: scripts/web --build-only)");
      }
      http.set_mount_point("/", options.web_dir.string());
    }
  }
};

ClassServer::ClassServer(ServerOptions options, std::shared_ptr<const data::Catalog> catalog)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(catalog))) {
  impl_->routes();
  const auto& o = impl_->options;
  if (o.port == 0) {
    impl_->port = impl_->http.bind_to_any_port(o.host);
  } else {
    impl_->port = impl_->http.bind_to_port(o.host, o.port) ? o.port : -1;
  }
  if (impl_->port <= 0) {
    throw ListenError("cannot listen on " + o.host + ":" + std::to_string(o.port) + " (in use? try another --port)");
  }
}

ClassServer::~ClassServer() { stop(); }

int ClassServer::port() const { return impl_->port; }
const std::string& ClassServer::instructor_token() const { return impl_->token; }
Store& ClassServer::store() { return impl_->store; }
void ClassServer::set_before_hand_in_commit(std::function<void()> hook) {
  impl_->api.before_hand_in_commit = std::move(hook);
}

void ClassServer::run() { impl_->http.listen_after_bind(); }

void ClassServer::start() {
  impl_->thread = std::thread([this] { impl_->http.listen_after_bind(); });
  while (!impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

void ClassServer::stop() {
  impl_->http.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace tycoon::server
