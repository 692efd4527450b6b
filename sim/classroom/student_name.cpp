#include "sim/classroom/student_name.h"

#include <vector>

#include "sim/core/utf8.h"

namespace tycoon::classroom {

namespace {

bool is_invisible(char32_t c) {
  return c == 0x00AD || c == 0x034F || c == 0x061C || c == 0x115F || c == 0x1160 || c == 0x17B4 || c == 0x17B5 ||
         (c >= 0x180B && c <= 0x180F) || (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x206F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0xE0000 && c <= 0xE007F);
}

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Latin-1 letters with a diacritic: the base letter and the combining mark (canonical
// decomposition); 0 when `c` is not one.
struct Decomposed {
  char32_t base = 0, mark = 0;
};
Decomposed decompose_latin1(char32_t c) {
  // U+00C0..U+00FF in order; 0 where the character has no decomposition (Æ, Ð, ×, Ø, Þ, ß, ...).
  static constexpr char kBase[] = "AAAAAA\0CEEEEIIII\0NOOOOO\0\0UUUUY\0\0aaaaaa\0ceeeeiiii\0nooooo\0\0uuuuy\0y";
  static constexpr char32_t kMark[] = {
      0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0,     0x327, 0x300, 0x301, 0x302, 0x308, 0x300, 0x301, 0x302, 0x308,
      0,     0x303, 0x300, 0x301, 0x302, 0x303, 0x308, 0,     0,     0x300, 0x301, 0x302, 0x308, 0x301, 0,     0,
      0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0,     0x327, 0x300, 0x301, 0x302, 0x308, 0x300, 0x301, 0x302, 0x308,
      0,     0x303, 0x300, 0x301, 0x302, 0x303, 0x308, 0,     0,     0x300, 0x301, 0x302, 0x308, 0x301, 0,     0x308};
  static_assert(sizeof kBase == 64 + 1 && sizeof kMark / sizeof kMark[0] == 64);
  if (c < 0xC0 || c > 0xFF) return {};
  const std::size_t i = c - 0xC0;
  if (kBase[i] == '\0' || kMark[i] == 0) return {};
  return {static_cast<char32_t>(kBase[i]), kMark[i]};
}

// A Cyrillic or Greek letter drawn like a Latin one: that letter (case kept); else `c`.
char32_t latin_look_alike(char32_t c) {
  struct Pair {
    char32_t from;
    char to;
  };
  static constexpr Pair kPairs[] = {// Cyrillic capitals and small letters
                                    {0x0410, 'A'},
                                    {0x0412, 'B'},
                                    {0x0415, 'E'},
                                    {0x041A, 'K'},
                                    {0x041C, 'M'},
                                    {0x041D, 'H'},
                                    {0x041E, 'O'},
                                    {0x0420, 'P'},
                                    {0x0421, 'C'},
                                    {0x0422, 'T'},
                                    {0x0425, 'X'},
                                    {0x0405, 'S'},
                                    {0x0406, 'I'},
                                    {0x0408, 'J'},
                                    {0x0430, 'a'},
                                    {0x0435, 'e'},
                                    {0x043E, 'o'},
                                    {0x0440, 'p'},
                                    {0x0441, 'c'},
                                    {0x0443, 'y'},
                                    {0x0445, 'x'},
                                    {0x0455, 's'},
                                    {0x0456, 'i'},
                                    {0x0458, 'j'},
                                    {0x04BB, 'h'},
                                    {0x0501, 'd'},
                                    {0x051B, 'q'},
                                    {0x051D, 'w'},
                                    {0x04CF, 'l'},
                                    // Greek capitals and small letters
                                    {0x0391, 'A'},
                                    {0x0392, 'B'},
                                    {0x0395, 'E'},
                                    {0x0396, 'Z'},
                                    {0x0397, 'H'},
                                    {0x0399, 'I'},
                                    {0x039A, 'K'},
                                    {0x039C, 'M'},
                                    {0x039D, 'N'},
                                    {0x039F, 'O'},
                                    {0x03A1, 'P'},
                                    {0x03A4, 'T'},
                                    {0x03A5, 'Y'},
                                    {0x03A7, 'X'},
                                    {0x03BF, 'o'},
                                    {0x03BD, 'v'},
                                    {0x03B9, 'i'},
                                    {0x03C1, 'p'},
                                    // Latin letters drawn like others
                                    {0x0131, 'i'}};
  for (const Pair& p : kPairs) {
    if (p.from == c) return static_cast<char32_t>(p.to);
  }
  if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFEE0;  // fullwidth ASCII
  return c;
}

char32_t to_lower(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;     // Latin-1
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;  // Greek
  if (c >= 0x410 && c <= 0x42F) return c + 32;                // Cyrillic
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

}  // namespace

std::string student_name_key(std::string_view name) {
  auto decoded = core::decode_utf8(name);
  if (!decoded) return std::string(name);
  std::vector<char32_t> cs;
  bool pending_space = false;
  for (char32_t c : *decoded) {
    if (is_invisible(c)) continue;
    if (is_space(c)) {
      pending_space = !cs.empty();
      continue;
    }
    if (pending_space) cs.push_back(' ');
    pending_space = false;
    if (auto d = decompose_latin1(c); d.base != 0) {
      cs.push_back(d.base);
      cs.push_back(d.mark);
      continue;
    }
    c = latin_look_alike(c);
    if (c == 'I' || c == '1' || c == '|') c = 'l';
    if (c == '0') c = 'O';
    cs.push_back(c);
  }
  std::string out;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (cs[i] == 'r' && i + 1 < cs.size() && cs[i + 1] == 'n') {
      out += 'm';
      ++i;
      continue;
    }
    core::append_utf8(out, to_lower(cs[i]));
  }
  return out;
}

}  // namespace tycoon::classroom
