// The instructor's page (GET /instructor): one self-contained HTML page over the class API —
// classes, a new class, the roster with each student's link, the deadline and attempts policy,
// the live leaderboard with its flags, two students side by side, the gradebook CSV. It shows
// what the API returns and computes nothing; the token stays in the page (from the URL's
// fragment, which browsers never send to the server) and goes out as the Authorization header.
#pragma once

#include <string>

namespace tycoon::server {

const std::string& instructor_page_html();

}  // namespace tycoon::server
