// UTF-8 text from outside: checked before it reaches a JSON writer (nlohmann throws on invalid
// UTF-8 when it dumps, which would surface as an internal error) and decoded for comparisons.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tycoon::core {

// The code points of `s`, or nullopt when it is not valid UTF-8 (a stray continuation byte, a
// truncated sequence, an overlong form, a surrogate or a code point above U+10FFFF).
std::optional<std::vector<char32_t>> decode_utf8(std::string_view s);

inline bool is_valid_utf8(std::string_view s) { return decode_utf8(s).has_value(); }

// The UTF-8 encoding of one code point (which must be a valid scalar value).
void append_utf8(std::string& out, char32_t c);

}  // namespace tycoon::core
