// The strict loader: every kind of bad input is an error naming file, JSON pointer and reason.
#include <doctest/doctest.h>

#include "sim/data/json_reader.h"

using namespace tycoon::data;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const LoadError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("strict object reader reports file, pointer and reason") {
  auto j = parse_json_text(R"({"hbm_bytes": 141e9, "name": "H200", "nested": {"x": -1}})", "h200.json");

  SUBCASE("unknown key") {
    ObjectReader r(j, "h200.json", "");
    r.number("hbm_bytes", Bound::kPositive);
    r.string("name");
    CHECK(error_of([&] { r.finish(); }) == "h200.json: /nested: unknown key");
  }
  SUBCASE("missing required field") {
    ObjectReader r(j, "h200.json", "");
    CHECK(error_of([&] { r.number("hbm_bandwidth_bytes_per_s"); }) ==
          "h200.json: /hbm_bandwidth_bytes_per_s: missing required field");
  }
  SUBCASE("wrong type") {
    ObjectReader r(j, "h200.json", "");
    CHECK(error_of([&] { r.number("name"); }) == "h200.json: /name: expected a number, got string");
  }
  SUBCASE("negative where positive is required, in a nested object") {
    ObjectReader r(j, "h200.json", "");
    auto n = r.object("nested");
    CHECK(error_of([&] { n.number("x", Bound::kPositive); }) == "h200.json: /nested/x: must be positive");
    CHECK(error_of([&] { n.number("x", Bound::kNonNegative); }) == "h200.json: /nested/x: must not be negative");
  }
}

TEST_CASE("zero, overflowing and fractional numbers are rejected") {
  // JSON has no NaN or inf literal; an overflowing literal is the way to smuggle inf in.
  CHECK(error_of([] { parse_json_text(R"({"huge": 1e400})", "inf.json"); }).rfind("inf.json: /: invalid JSON", 0) == 0);
  CHECK(error_of([] { parse_json_text(R"({"nan": NaN})", "nan.json"); }).rfind("nan.json: /: invalid JSON", 0) == 0);
  auto j = parse_json_text(R"({"zero": 0, "frac": 1.5})", "f.json");
  ObjectReader r(j, "f.json", "");
  CHECK(error_of([&] { r.number("zero", Bound::kPositive); }) == "f.json: /zero: must be positive");
  CHECK(error_of([&] { r.integer("frac"); }) == "f.json: /frac: expected an integer");
}

TEST_CASE("JSON syntax errors and duplicate keys are load errors, not crashes") {
  CHECK(error_of([] { parse_json_text("{\"a\": 1,", "bad.json"); }).rfind("bad.json: /: invalid JSON", 0) == 0);
  // The pointer names the second occurrence; equal keys in different objects are no duplicate.
  CHECK(error_of([] { parse_json_text(R"({"a": 1, "a": 2})", "dup.json"); }) == "dup.json: /a: duplicate key");
  CHECK(error_of([] { parse_json_text(R"({"x": {"a": 1, "b": {"a": 1}, "a": 3}})", "d2.json"); }) ==
        "d2.json: /x/a: duplicate key");
  CHECK(error_of([] { parse_json_text(R"({"l": [{"k": 1}, 7, [], {"k": 1, "k": 2}]})", "d3.json"); }) ==
        "d3.json: /l/3/k: duplicate key");
}

TEST_CASE("nesting deeper than kMaxJsonDepth is refused while parsing, without recursion") {
  // 100,000 levels crashed the save checksum and the sweep spec copy (both recurse): the parser
  // now stops at level kMaxJsonDepth + 1 and names where.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(error_of([&] { parse_json_text(deep, "deep.json"); }).rfind("deep.json: /0/0/0/", 0) == 0);
  CHECK(error_of([&] { parse_json_text(deep, "deep.json"); }).find("nested deeper than 64 objects or arrays") !=
        std::string::npos);
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  CHECK(error_of([&] { parse_json_text(objects, "deep.json"); }).find("nested deeper than 64") != std::string::npos);

  SUBCASE("exactly kMaxJsonDepth levels still load") {
    const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
    CHECK(parse_json_text(ok, "ok.json").is_array());
    const std::string one_more = "[" + ok + "]";
    CHECK(error_of([&] { parse_json_text(one_more, "m.json"); }).find("nested deeper") != std::string::npos);
  }
}

TEST_CASE("a wrong top-level type is reported") {
  auto j = parse_json_text("[1, 2]", "arr.json");
  CHECK(error_of([&] { ObjectReader r(j, "arr.json", ""); }) == "arr.json: /: expected an object, got array");
}
