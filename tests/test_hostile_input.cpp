// Hostile input: files are opened one way (regular files only, a size
// limit per kind, bounded reads), JSON parses in linear time, figures are bounded before they
// size anything, and the class kit neither follows a link out of the submissions folder nor
// quotes what a rejected file holds.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/roster.h"
#include "sim/classroom/student_name.h"
#include "sim/classroom/submission.h"
#include "sim/core/input_file.h"
#include "sim/core/utf8.h"
#include "sim/data/json_reader.h"
#include "sim/traffic/trace.h"
#include "sim/traffic/trace_import.h"
#include "tests/game_test_util.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

fs::path hostile_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("tycoon-hostile-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string read_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::FileReadError& e) {
    return e.what();
  } catch (const data::LoadError& e) {
    return e.what();
  }
  return "no error";
}

using test::contains;

}  // namespace

TEST_CASE("input files: regular files only, a size limit per kind, links refused where asked") {
  const auto dir = hostile_dir("files");
  write_text(dir / "ok.json", "{\"a\": 1}");
  const core::InputKind tiny{"test input", 4};

  SUBCASE("a regular file within its limit is read whole") {
    CHECK(core::read_input_file(dir / "ok.json", core::kDataFileInput) == "{\"a\": 1}");
  }
  SUBCASE("above the kind's limit: refused, the limit and the kind named") {
    // 8 bytes against a 4-byte limit.
    CHECK(read_error([&] { core::read_input_file(dir / "ok.json", tiny); }) ==
          (dir / "ok.json").string() + ": is 8 bytes, too large: the limit for a test input is 4 bytes");
  }
  SUBCASE("a device is refused before a byte is read (/dev/zero never ends)") {
    CHECK(read_error([&] { core::read_input_file("/dev/zero", core::kTraceInput); }) ==
          "/dev/zero: is a device, not a trace (only regular files are read)");
  }
  SUBCASE("a FIFO is refused at once, without waiting for a writer") {
    REQUIRE(::mkfifo((dir / "pipe.json").c_str(), 0600) == 0);
    CHECK(contains(read_error([&] { core::read_input_file(dir / "pipe.json", core::kSaveInput); }),
                   "is a FIFO (named pipe), not a save"));
  }
  SUBCASE("a folder is refused") {
    CHECK(contains(read_error([&] { core::read_input_file(dir, core::kSubmissionInput); }),
                   "is a folder, not a submission"));
  }
  SUBCASE("a link: followed where the user named the path, refused by name where a folder is scanned") {
    fs::create_symlink(dir / "ok.json", dir / "link.json");
    CHECK(core::read_input_file(dir / "link.json", core::kDataFileInput) == "{\"a\": 1}");
    CHECK(read_error([&] { core::read_input_file(dir / "link.json", core::kSubmissionInput, core::Links::kRefuse); }) ==
          (dir / "link.json").string() + ": is a symbolic link, not a submission (only regular files are read here)");
  }
  SUBCASE("a missing file names the system's reason") {
    CHECK(contains(read_error([&] { core::read_input_file(dir / "none.json", core::kDataFileInput); }),
                   "cannot open the data file: No such file or directory"));
  }
  SUBCASE("parse_json_file goes through the same door: its refusal is a LoadError naming the file") {
    CHECK(read_error([&] { data::parse_json_file("/dev/zero"); }) ==
          "/dev/zero: /: is a device, not a data file (only regular files are read)");
  }
  fs::remove_all(dir);
}

TEST_CASE("JSON: an array of 10^6 objects parses, each element once (no callback parser)") {
  // nlohmann 3.11.2's callback parser rescanned the parent array at the end of every object:
  // 300,000 objects took a minute, 10^6 about ten. The SAX builder is linear: 10^6 objects of
  // 8 bytes (8 MB) parse in about a second in a release build. Not a timing test: it checks the
  // value built, and would only time out with the quadratic parser.
  constexpr std::size_t kNumObjects = 1'000'000;
  std::string text = "[";
  text.reserve(kNumObjects * 9 + 2);
  for (std::size_t i = 0; i < kNumObjects; ++i) text += i ? ",{\"k\":1}" : "{\"k\":1}";
  text += "]";
  const auto j = data::parse_json_text(text, "big.json");
  REQUIRE(j.is_array());
  CHECK(j.size() == kNumObjects);
  CHECK(j.back().at("k") == 1);
  // The strict checks hold inside a large array too: a duplicate key in the last object.
  text.back() = ',';
  text += "{\"k\":1,\"k\":2}]";
  CHECK(read_error([&] { data::parse_json_text(text, "big.json"); }) ==
        "big.json: /" + std::to_string(kNumObjects) + "/k: duplicate key");
}

TEST_CASE("JSON: an integer above 2^53 is too large, not 'expected an integer'") {
  const auto j = data::parse_json_text(
      R"({"ok": 9007199254740992, "big": 9007199254740993, "huge": 1e18, "neg": -1e300, "frac": 2.5})", "n.json");
  data::ObjectReader r(j, "n.json", "");
  CHECK(r.integer("ok") == 9007199254740992);  // 2^53 itself is exact
  const std::string too_large = "too large: an integer here must be at most 2^53 (9007199254740992) in magnitude";
  CHECK(read_error([&] { r.integer("big"); }) == "n.json: /big: " + too_large);
  CHECK(read_error([&] { r.integer("huge"); }) == "n.json: /huge: " + too_large);
  CHECK(read_error([&] { r.integer("neg"); }) == "n.json: /neg: " + too_large);
  CHECK(read_error([&] { r.integer("frac"); }) == "n.json: /frac: expected an integer");
}

TEST_CASE("traces: a byte order mark is skipped; huge timestamps are refused with file and line") {
  const std::string row = "{\"arrival_s\": 0, \"input_tokens\": 10, \"output_tokens\": 5}\n";
  SUBCASE("a UTF-8 BOM before our JSONL and before an Azure header") {
    CHECK(traffic::parse_any_trace("\xEF\xBB\xBF" + row, "bom.jsonl").entries.size() == 1);
    const auto azure = traffic::parse_any_trace(
        "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n", "bom.csv");
    CHECK(azure.format == "azure");
  }
  SUBCASE("an arrival 1e300 s after the start: refused in a few digits, with the line") {
    const std::string huge = row + "{\"arrival_s\": 1e300, \"input_tokens\": 10, \"output_tokens\": 5}\n";
    const std::string e = read_error([&] { traffic::parse_any_trace(huge, "t.jsonl"); });
    CHECK(e ==
          "t.jsonl:2: /arrival_s: too large: 1e+300 s; a trace's arrivals are at most 1e+09 s (about 31 years) "
          "after its start");
    // Mooncake's milliseconds, and the same bound.
    const std::string mooncake = "{\"timestamp\": 1e300, \"input_length\": 10, \"output_length\": 5}\n";
    CHECK(read_error([&] {
            traffic::parse_any_trace(mooncake, "m.jsonl");
          }).starts_with("m.jsonl:1: /timestamp: too large"));
  }
  SUBCASE("/dev/zero as a trace: exit-2 input error naming the file and the reason") {
    CHECK(read_error([] { traffic::load_trace("/dev/zero"); }) ==
          "/dev/zero: /: is a device, not a trace (only regular files are read)");
  }
}

TEST_CASE("student names: case, spaces, invisible and look-alike characters do not make another student") {
  using classroom::student_name_key;
  const std::string ada = student_name_key("Ada Lovelace");
  CHECK(student_name_key("ada lovelace") == ada);
  CHECK(student_name_key("  Ada   Lovelace ") == ada);
  CHECK(student_name_key("Ada\xC2\xA0Lovelace") == ada);  // no-break space
  CHECK(student_name_key("A\xE2\x80\x8B"
                         "da Lovelace") == ada);  // zero-width space
  CHECK(student_name_key("\xD0\x90"
                         "da Lovelace") == ada);                 // Cyrillic capital A
  CHECK(student_name_key("Ad\xD0\xB0 L\xCE\xBFvelace") == ada);  // Cyrillic a, Greek omicron
  CHECK(student_name_key("\xEF\xBC\xA1"
                         "da Lovelace") == ada);   // fullwidth A
  CHECK(student_name_key("Ada LoveIace") == ada);  // capital I for small l
  // A precomposed é and e + combining acute are one letter.
  CHECK(student_name_key("Jos\xC3\xA9") == student_name_key("Jose\xCC\x81"));
  // Different names stay different.
  CHECK(student_name_key("Ada") != student_name_key("Adam"));
  CHECK(student_name_key("Jos\xC3\xA9") != student_name_key("Jose"));
}

TEST_CASE("names and titles that are not UTF-8 are refused as input, not an internal error") {
  CHECK(classroom::student_name_problem("Ada\xFF") == "is not valid UTF-8 text");
  CHECK(classroom::student_name_problem("Ad\xC3") == "is not valid UTF-8 text");  // cut mid-character
  CHECK(classroom::student_name_problem("Z\xC3\xBC"
                                        "rich") == "");
  CHECK_FALSE(core::is_valid_utf8("\xED\xA0\x80"));  // a surrogate
  CHECK_FALSE(core::is_valid_utf8("\xC0\xAF"));      // an overlong '/'
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.title = "Week \xFF";
  const auto scenario =
      game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), test::catalog());
  CHECK_THROWS_WITH_AS(classroom::make_class(scenario, c), "title: not valid UTF-8 text", core::InputError);
}

TEST_CASE("class report: links, devices and folders in the submissions folder are rejected by name, never read") {
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.seed = 4242;
  c.days = 1;
  const auto scenario =
      game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), test::catalog());
  const auto world =
      classroom::class_world(classroom::make_class(scenario, c), "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR);
  const auto dir = hostile_dir("subs");
  const auto outside = hostile_dir("secret");
  // A file outside the folder that a link points at; its content must appear nowhere.
  const std::string secret = "root:$6$SECRET-HASH:19000:0:99999:7:::";
  write_text(outside / "shadow", secret + "\n");
  fs::create_symlink(outside / "shadow", dir / "a-link.json");
  fs::create_directory(dir / "b-folder.json");
  REQUIRE(::mkfifo((dir / "c-pipe.json").c_str(), 0600) == 0);
  // A regular file in the folder (a hard link would be one) that is not JSON: rejected without
  // quoting it; and JSON whose field is not a submission's: without quoting the value.
  write_text(dir / "d-text.json", secret + "\n");
  write_text(dir / "e-json.json", "{\"format\": \"" + secret + "\"}");

  const auto report = classroom::build_class_report(world, test::catalog(), classroom::submission_files(dir));
  CHECK(report.valid.empty());
  REQUIRE(report.rejected.size() == 5);
  CHECK(report.rejected[0].reason ==
        (dir / "a-link.json").string() + ": is a symbolic link, not a submission (only regular files are read here)");
  CHECK(contains(report.rejected[1].reason, "b-folder.json: is a folder"));
  CHECK(contains(report.rejected[2].reason, "c-pipe.json: is a FIFO"));
  CHECK(contains(report.rejected[3].reason, "d-text.json: /: invalid JSON"));
  CHECK(contains(report.rejected[4].reason, "e-json.json: /format"));
  const std::string json = classroom::to_json(report).dump();
  const std::string html = classroom::report_html(report);
  CHECK_FALSE(contains(json, "SECRET"));
  CHECK_FALSE(contains(html, "SECRET"));
  for (const auto& r : report.rejected) {
    CHECK_FALSE(contains(r.reason, "SECRET"));
    MESSAGE(r.file << ": " << r.reason);
  }
  fs::remove_all(dir);
  fs::remove_all(outside);
}

TEST_CASE("class roster: a name is bound to its code; a forged name is rejected even when it sorts first") {
  classroom::ClassChoices c;
  c.class_id = "econ-101";
  c.seed = 4242;
  c.days = 1;
  const auto scenario =
      game::load_scenario(game::find_scenario("classroom-prices-only", TYCOON_SOURCE_DIR), test::catalog());
  const auto world =
      classroom::class_world(classroom::make_class(scenario, c), "econ-101.json", test::catalog(), TYCOON_SOURCE_DIR);
  // Fixed "random" words: the codes are what format_student_code makes of them (16 characters).
  const std::string ada_code = classroom::format_student_code(1, 2), bea_code = classroom::format_student_code(3, 4);
  CHECK(ada_code.size() == 16 + 3);
  CHECK(ada_code != bea_code);
  const auto roster = classroom::make_roster(
      "econ-101", classroom::roster_names_from_text("# week 3\nAda Lovelace\n\n  Bea Bell \n"), {ada_code, bea_code});
  REQUIRE(roster.students.size() == 2);
  CHECK(roster.students[1].student == "Bea Bell");
  // A name twice on the roster (by its key) is refused.
  CHECK_THROWS_AS(classroom::make_roster("econ-101", {"Ada", "ada "}, {ada_code, bea_code}), core::InputError);

  auto probe = world.new_game(test::catalog());
  const auto cf = game::run_counterfactuals(probe->scenario(), probe->state(), test::catalog(), world.options.windows,
                                            probe->advisor());
  auto g = classroom::play_class_game(world, test::catalog(), {});
  const auto dir = hostile_dir("roster");
  // The forger's files sort first: no code, a classmate's code; the real Ada's last.
  write_text(dir / "a-forged.json",
             classroom::submission_text(classroom::make_submission(world, *g, cf, "Ada Lovelace")));
  write_text(dir / "b-forged.json",
             classroom::submission_text(classroom::make_submission(world, *g, cf, "ada lovelace", bea_code)));
  // Codes are compared without case or dashes (as a student may type them).
  std::string typed = ada_code;
  typed.erase(std::remove(typed.begin(), typed.end(), '-'), typed.end());
  write_text(dir / "c-ada.json",
             classroom::submission_text(classroom::make_submission(world, *g, cf, "Ada Lovelace", typed)));
  write_text(dir / "d-carl.json",
             classroom::submission_text(classroom::make_submission(world, *g, cf, "Carl", ada_code)));

  const auto report = classroom::build_class_report(world, test::catalog(), classroom::submission_files(dir), &roster);
  REQUIRE(report.valid.size() == 1);
  CHECK(report.valid[0].file == "c-ada.json");
  REQUIRE(report.rejected.size() == 3);
  CHECK(report.rejected[0].reason == "no student code: the class has a roster (class submit --code)");
  CHECK(report.rejected[1].reason == "its student code is not the one the roster gives 'Ada Lovelace'");
  CHECK(report.rejected[2].reason == "'Carl' is not on the class roster");
  // No code reaches the report.
  CHECK_FALSE(contains(classroom::to_json(report).dump(), bea_code));
  CHECK_FALSE(contains(classroom::report_html(report), ada_code));
  // Without the roster the forger's first file wins: what the roster protects against.
  const auto unchecked = classroom::build_class_report(world, test::catalog(), classroom::submission_files(dir));
  REQUIRE_FALSE(unchecked.valid.empty());
  CHECK(unchecked.valid[0].file == "a-forged.json");
  fs::remove_all(dir);
}
