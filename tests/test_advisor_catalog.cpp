// The advisor's code-change catalog loads strictly, covers the blooper reel, and each hidden trait
// turns into the op-class factor it promises.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "sim/advisor/code_change_catalog.h"
#include "sim/advisor/deployment_setup.h"
#include "sim/data/json_reader.h"

using namespace tycoon;
using advisor::Trait;

namespace {

constexpr double kExactCatalog = 1e-12;

std::string catalog_load_error(const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / "tycoon_advisor_catalog_test.json";
  std::ofstream(path) << text;
  try {
    advisor::load_code_change_catalog(path);
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHeader = R"({"format_version": 1, "about": "test", "changes": [)";

}  // namespace

TEST_CASE("the bundled catalog has at least 20 changes covering every trait") {
  auto c = advisor::load_code_change_catalog_from_root(TYCOON_SOURCE_DIR);
  CHECK(c.changes.size() >= 20);
  std::set<Trait> traits;
  std::set<perf::OpClass> ops;
  for (const auto& x : c.changes) {
    traits.insert(x.trait);
    ops.insert(x.op_class);
    CHECK(x.component_speedup > 1.0);
    CHECK_FALSE(x.source.empty());
  }
  CHECK(traits.size() == advisor::kTraitNames.size());
  CHECK(ops.size() >= 8);
  CHECK(c.find("moe-fast-mode") != nullptr);
}

TEST_CASE("each trait's true op-time factor on real traffic") {
  advisor::CodeChange c;
  c.component_speedup = 1.25;  // the claim: the class takes 1/1.25 = 0.8 of its time
  SUBCASE("a real win keeps its component speedup") {
    c.trait = Trait::kRealWin;
    CHECK(c.true_op_time_scale(serving::WorkloadKind::kChat) == doctest::Approx(0.8).epsilon(kExactCatalog));
  }
  SUBCASE("a change tuned for chat keeps 40% of its gain on input-heavy traffic") {
    c.trait = Trait::kShrinksOnOtherTraffic;
    c.tuned_for_workload = serving::WorkloadKind::kChat;
    c.gain_kept_on_other_traffic = 0.4;
    CHECK(c.true_op_time_scale(serving::WorkloadKind::kChat) == doctest::Approx(0.8).epsilon(kExactCatalog));
    // 1 + 0.25 x 0.4 = 1.1 faster
    CHECK(c.true_op_time_scale(serving::WorkloadKind::kInputHeavy) == doctest::Approx(1 / 1.1).epsilon(kExactCatalog));
  }
  SUBCASE("fast_mode is slower on real shapes") {
    c.trait = Trait::kIsolationOnly;
    c.real_traffic_op_time_scale = 1.6;
    CHECK(c.true_op_time_scale(serving::WorkloadKind::kChat) == 1.6);
  }
  SUBCASE("scorer gaming gains nothing on real traffic") {
    c.trait = Trait::kScorerGaming;
    CHECK(c.true_op_time_scale(serving::WorkloadKind::kChat) == 1.0);
  }
}

TEST_CASE("Amdahl: a 2x faster class that is 30% of the step gives 1/(0.7 + 0.15)") {
  advisor::OpTimes share{};
  share[static_cast<std::size_t>(perf::OpClass::kMoeExperts)] = 0.3;
  share[static_cast<std::size_t>(perf::OpClass::kAttentionDecode)] = 0.7;
  auto scale = advisor::unit_op_times();
  scale[static_cast<std::size_t>(perf::OpClass::kMoeExperts)] = 0.5;
  CHECK(advisor::amdahl_speedup(share, scale) == doctest::Approx(1 / 0.85).epsilon(kExactCatalog));
}

TEST_CASE("the catalog loader is strict and names the JSON pointer") {
  const std::string ok_entry =
      R"({"id": "a", "title": "t", "op_class": "moe_experts", "component_speedup": 1.2, "trait": "real_win", "source": "s"})";
  CHECK(catalog_load_error(std::string(kHeader) + ok_entry + "]}") == "no error");
  SUBCASE("unknown key") {
    auto e = catalog_load_error(std::string(kHeader) +
                                R"({"id": "a", "title": "t", "op_class": "moe_experts", "component_speedup": 1.2,
                            "trait": "real_win", "source": "s", "speedup_typo": 2}]})");
    CHECK(e.find("/changes/0/speedup_typo") != std::string::npos);
  }
  SUBCASE("unknown op class") {
    auto e = catalog_load_error(std::string(kHeader) +
                                R"({"id": "a", "title": "t", "op_class": "moe", "component_speedup": 1.2,
                            "trait": "real_win", "source": "s"}]})");
    CHECK(e.find("/changes/0/op_class") != std::string::npos);
  }
  SUBCASE("a trait's parameter is required, and only for that trait") {
    auto missing = catalog_load_error(std::string(kHeader) +
                                      R"({"id": "a", "title": "t", "op_class": "moe_experts", "component_speedup": 1.2,
                                  "trait": "isolation_only", "source": "s"}]})");
    CHECK(missing.find("real_traffic_op_time_scale") != std::string::npos);
    auto extra = catalog_load_error(std::string(kHeader) +
                                    R"({"id": "a", "title": "t", "op_class": "moe_experts", "component_speedup": 1.2,
                                "trait": "real_win", "reputation_hit": 0.2, "source": "s"}]})");
    CHECK(extra.find("/changes/0/reputation_hit") != std::string::npos);
  }
  SUBCASE("a claim must be a gain") {
    auto e = catalog_load_error(std::string(kHeader) +
                                R"({"id": "a", "title": "t", "op_class": "moe_experts", "component_speedup": 0.9,
                            "trait": "real_win", "source": "s"}]})");
    CHECK(e.find("/changes/0/component_speedup") != std::string::npos);
  }
}
