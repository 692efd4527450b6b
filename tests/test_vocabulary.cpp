// One enum per concept with one names table, in the lowest layer that uses it, so that two
// spellings of one choice cannot drift apart: serving uses traffic's workload and arrival kinds,
// the engine card's admission policy, and the CLI builds its accepted values from the same tables.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/core/types.h"
#include "sim/data/engine.h"
#include "sim/serving/serving_sim.h"
#include "sim/traffic/arrivals.h"
#include "sim/traffic/workload.h"

namespace tycoon {
namespace {

static_assert(std::is_same_v<serving::WorkloadKind, traffic::WorkloadKind>, "one workload enum");
static_assert(std::is_same_v<serving::ArrivalKind, traffic::ArrivalKind>, "one arrival enum");
static_assert(std::is_same_v<serving::KvAdmission, data::KvAdmission>, "one admission enum");

// Every name parses to its own enumerator and back; names are distinct.
template <typename E, std::size_t N>
void check_round_trip(const std::array<std::string_view, N>& names) {
  std::set<std::string_view> distinct(names.begin(), names.end());
  CHECK(distinct.size() == N);
  for (std::size_t i = 0; i < N; ++i) {
    INFO(names[i]);
    auto e = parse_enum<E>(names[i], names);
    REQUIRE(e.has_value());
    CHECK(static_cast<std::size_t>(*e) == i);
    CHECK(names[static_cast<std::size_t>(*e)] == names[i]);
  }
  CHECK_FALSE(parse_enum<E>("no-such-name", names).has_value());
}

// The `{a,b,...}` set CLI11 prints after `option` in `tycoon <command> --help`.
std::vector<std::string> cli_choices(const std::string& help, const std::string& option) {
  const auto at = help.find("  " + option + " ");
  if (at == std::string::npos) return {};
  const auto open = help.find('{', at);
  const auto close = help.find('}', open);
  const auto eol = help.find('\n', at);
  if (open == std::string::npos || close == std::string::npos || open > eol) return {};
  std::vector<std::string> out;
  std::string cur;
  for (char c : help.substr(open + 1, close - open - 1)) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

template <std::size_t N>
std::vector<std::string> as_strings(const std::array<std::string_view, N>& names) {
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace

TEST_CASE("every name of every vocabulary round-trips") {
  check_round_trip<traffic::WorkloadKind>(traffic::kWorkloadNames);
  check_round_trip<traffic::ArrivalKind>(traffic::kArrivalNames);
  check_round_trip<data::KvAdmission>(data::kKvAdmissionNames);
  check_round_trip<serving::RouterKind>(serving::kRouterNames);
  check_round_trip<serving::KvLinkKind>(serving::kKvLinkNames);
  check_round_trip<Precision>(kPrecisionNames);
}

TEST_CASE("a closed-loop kind is not an open-loop arrival process") {
  // Closed-loop users are run by the serving simulation; the arrival process refuses the kind.
  CHECK_THROWS_AS(traffic::ArrivalProcess(traffic::ArrivalParams{traffic::ArrivalKind::kClosedLoop, 1.0}, 1),
                  std::invalid_argument);
}

TEST_CASE("tycoon benchmark accepts exactly the names of the tables") {
  const std::filesystem::path tycoon = std::filesystem::path(TYCOON_BINARY_DIR) / "tycoon";
  if (!std::filesystem::exists(tycoon)) {
    MESSAGE("skipped: build the tycoon target first (" << tycoon.string() << " is missing)");
    return;
  }
  std::string help;
  {
    const std::string cmd = tycoon.string() + " benchmark --help 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) help.append(buf.data(), n);
    pclose(p);
  }
  CHECK(cli_choices(help, "--workload") == as_strings(traffic::kWorkloadNames));
  CHECK(cli_choices(help, "--arrival") == as_strings(traffic::kArrivalNames));
  CHECK(cli_choices(help, "--router") == as_strings(serving::kRouterNames));
  CHECK(cli_choices(help, "--kv-admission") == as_strings(data::kKvAdmissionNames));
  CHECK(cli_choices(help, "--kv-link") == as_strings(serving::kKvLinkNames));
  CHECK(cli_choices(help, "--precision") == as_strings(kPrecisionNames));
  CHECK(cli_choices(help, "--decode-precision") == as_strings(kPrecisionNames));
}

}  // namespace tycoon
