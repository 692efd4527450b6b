// libFuzzer target: the class kit's inputs. The first byte picks the loader: 0 a
// submission, 1 a class roster, 2 a student's name (student_name_problem, then student_name_key
// when the name is acceptable: it must never throw), 3 a roster's list of names, 4 a class file,
// 5 a class report's JSON (the browser's Import… reads both).
#include "sim/classroom/class_report.h"
#include "sim/classroom/class_spec.h"
#include "sim/classroom/roster.h"
#include "sim/classroom/student_name.h"
#include "sim/classroom/submission.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tycoon;
  if (size == 0) return 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  try {
    switch (data[0] % 6) {
      case 0:
        classroom::submission_from_json(data::parse_json_text(text, "s.json"), "s.json");
        break;
      case 1:
        classroom::roster_from_json(data::parse_json_text(text, "roster.json"), "roster.json");
        break;
      case 2:
        if (classroom::student_name_problem(text).empty()) (void)classroom::student_name_key(text);
        break;
      case 3:
        (void)classroom::roster_names_from_text(text);
        break;
      case 4:
        (void)classroom::class_from_json(data::parse_json_text(text, "class.json"), "class.json");
        break;
      default:
        (void)classroom::class_report_view_from_json(data::parse_json_text(text, "report.json"), "report.json");
        break;
    }
  } catch (const data::LoadError&) {
  } catch (const std::invalid_argument&) {  // core::InputError: a bad field value
  }
  return 0;
}
