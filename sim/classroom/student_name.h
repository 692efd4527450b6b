// When two submissions come from the same student: their names are compared after normalising
// what a reader of the standings cannot tell apart, so that "Ada", "ada ", "A\u200Bda"
// and "Аda" (a Cyrillic A) count as one student, and the second is refused as a second submission.
#pragma once

#include <string>
#include <string_view>

namespace tycoon::classroom {

// The key a name is judged by (not shown to anyone). In order: invisible characters (zero-width
// spaces and joiners, soft hyphen, direction marks, variation selectors, BOM) are dropped; every
// Unicode space becomes one ASCII space, leading and trailing ones are trimmed and runs collapse;
// Latin-1 letters with accents are decomposed (so a precomposed "é" and "e" + U+0301 are one);
// fullwidth ASCII becomes ASCII; Cyrillic and Greek letters drawn like Latin ones become those
// (А→A, о→o, Ρ→P, ...); the ASCII look-alikes I, 1 and | become l, 0 becomes O and "rn" m; then
// letters are folded to lower case (ASCII, Latin-1, Greek, Cyrillic). `name` must be valid UTF-8
// (student_name_problem); invalid text is returned unchanged.
std::string student_name_key(std::string_view name);

}  // namespace tycoon::classroom
