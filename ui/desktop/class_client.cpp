#include "ui/desktop/class_client.h"

#include <httplib.h>

#include <charconv>
#include <chrono>
#include <cstdio>

#include "sim/core/input_error.h"

namespace tycoon::ui::desktop {

namespace {

constexpr int kConnectTimeoutS = 10;
constexpr int kReadTimeoutS = 120;  // a week's replay on a busy server

ServerAnswer answer_of(const httplib::Result& r, const StudentLink& link) {
  ServerAnswer a;
  if (!r) {
    a.error = "the class server at " + link.base_url() + " did not answer (" + httplib::to_string(r.error()) + ")";
    return a;
  }
  a.status = r->status;
  a.ok = r->status >= 200 && r->status < 300;
  auto j = nlohmann::json::parse(r->body, nullptr, false);
  const bool is_object = j.is_object();
  if (is_object) a.body = std::move(j);
  if (!a.ok) {
    a.error = a.body.contains("error") && a.body["error"].is_string() ? a.body["error"].get<std::string>()
                                                                      : "HTTP " + std::to_string(r->status);
  } else if (!is_object) {
    a.ok = false;
    a.error = "the class server at " + link.base_url() + " sent something that is not JSON";
  }
  return a;
}

httplib::Client client_of(const StudentLink& link) {
  httplib::Client c(link.host, link.port);
  c.set_connection_timeout(kConnectTimeoutS, 0);
  c.set_read_timeout(kReadTimeoutS, 0);
  c.set_write_timeout(kReadTimeoutS, 0);
  return c;
}

}  // namespace

std::string StudentLink::base_url() const { return scheme + "://" + host + ":" + std::to_string(port); }

bool is_student_link(std::string_view link) { return link.rfind("http://", 0) == 0 || link.rfind("https://", 0) == 0; }

StudentLink parse_student_link(std::string_view link) {
  StudentLink out;
  const auto scheme_end = link.find("://");
  if (scheme_end == std::string_view::npos) {
    throw core::InputError("the student link must start with http:// (the address the instructor handed out)");
  }
  out.scheme = std::string(link.substr(0, scheme_end));
  if (out.scheme != "http") {
    throw core::InputError("the student link's scheme is " + out.scheme +
                           ": a class server (tycoon class serve) speaks http://");
  }
  std::string_view rest = link.substr(scheme_end + 3);
  const auto authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  const std::string_view tail = authority_end == std::string_view::npos ? "" : rest.substr(authority_end);
  const auto colon = authority.rfind(':');
  out.host = std::string(authority.substr(0, colon));
  if (out.host.empty()) throw core::InputError("the student link has no host (http://HOST:PORT/?code=...)");
  if (colon != std::string_view::npos) {
    const auto port_text = authority.substr(colon + 1);
    int port = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535) {
      throw core::InputError("the student link's port '" + std::string(port_text) +
                             "' is not a number from 1 to 65535");
    }
    out.port = port;
  }
  const auto q = tail.find('?');
  if (q != std::string_view::npos) {
    std::string_view query = tail.substr(q + 1);
    query = query.substr(0, query.find('#'));
    while (!query.empty()) {
      const auto amp = query.find('&');
      const auto param = query.substr(0, amp);
      if (param.rfind("code=", 0) == 0) out.code = std::string(param.substr(5));
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    }
  }
  if (out.code.empty()) {
    throw core::InputError("the student link has no code: it reads http://HOST:PORT/?code=YOUR-CODE");
  }
  return out;
}

ServerAnswer fetch_student_class(const StudentLink& link) {
  auto c = client_of(link);
  return answer_of(c.Get("/api/student/class", {{"X-Student-Code", link.code}}), link);
}

ServerAnswer post_hand_in(const StudentLink& link, const std::string& save_text) {
  auto c = client_of(link);
  return answer_of(c.Post("/api/student/hand-in", {{"X-Student-Code", link.code}}, save_text, "application/json"),
                   link);
}

std::string hand_in_message(const ServerAnswer& a) {
  if (!a.ok) return "Not handed in: " + a.error;
  // The server's receipt (classroom::hand_in_receipt), as the browser shows it.
  const auto& b = a.body;
  if (b.contains("receipt") && b["receipt"].is_string()) return b["receipt"].get<std::string>();
  return "Handed in (the server sent no receipt)";
}

HandInClient::HandInClient(StudentLink link, GameSource game, Post post)
    : link_(std::move(link)), game_(std::move(game)), post_(std::move(post)) {}

bool HandInClient::hand_in() {
  if (busy()) {
    message_ = "A hand-in is under way: wait for the server's answer.";
    return false;
  }
  const auto g = game_(true);
  if (!g) {
    message_ = "No game to hand in: start the class's game first.";
    last_ok_ = false;
    return false;
  }
  end_.sent(g->finished);
  message_ = "Handing in hour " + std::to_string(g->hour) + " of " + std::to_string(g->end_hour) + "...";
  pending_ =
      std::async(std::launch::async, [post = post_, link = link_, text = g->save_text] { return post(link, text); });
  return true;
}

void HandInClient::collect() {
  last_ = pending_.get();
  last_ok_ = last_->ok;
  if (last_ok_) ++num_handed_in_;
  message_ = hand_in_message(*last_);
}

void HandInClient::poll() {
  if (busy()) {
    if (pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    collect();
  }
  const auto g = game_(false);
  if (end_.due(g ? std::optional<bool>(g->finished) : std::nullopt)) hand_in();
}

void HandInClient::wait() {
  if (busy()) collect();
}

}  // namespace tycoon::ui::desktop
