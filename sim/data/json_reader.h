// Strict JSON reading: every key read is recorded, unknown keys are errors, and every error names
// the file and the JSON pointer of the offending value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/input_file.h"

namespace tycoon::data {

// An input error: `file: /json/pointer: reason`. The CLI maps it to exit code 2.
class LoadError : public std::runtime_error {
 public:
  LoadError(std::string file, std::string pointer, std::string reason);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::string pointer_;
  std::string reason_;
};

// What a number must satisfy besides being finite.
enum class Bound { kAny, kNonNegative, kPositive, kUnit /* in (0, 1] */ };

class ArrayReader;

// A view on one JSON object. Reading a key marks it used; finish() rejects keys never read.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& value, std::string file, std::string pointer);

  bool has(std::string_view key) const;
  double number(std::string_view key, Bound bound = Bound::kAny);
  std::optional<double> optional_number(std::string_view key, Bound bound = Bound::kAny);
  std::int64_t integer(std::string_view key, Bound bound = Bound::kAny);
  std::optional<std::int64_t> optional_integer(std::string_view key, Bound bound = Bound::kAny);
  std::string string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  bool boolean(std::string_view key);
  std::optional<bool> optional_boolean(std::string_view key);
  std::vector<std::string> string_array(std::string_view key);
  ObjectReader object(std::string_view key);
  // Returns nullopt when the key is absent or null.
  std::optional<ObjectReader> optional_object(std::string_view key);
  ArrayReader array(std::string_view key);
  // Marks a key as read without interpreting it (the caller handles it some other way).
  const nlohmann::json& raw(std::string_view key);

  // A string that must be one of `names`; returns its index.
  std::size_t choice(std::string_view key, std::span<const std::string_view> names);

  // Throws on the first key that was never read.
  void finish() const;

  [[noreturn]] void fail(std::string_view key, const std::string& reason) const;
  [[noreturn]] void fail_here(const std::string& reason) const;
  std::string pointer_to(std::string_view key) const;
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  std::vector<std::string> keys() const;

 private:
  const nlohmann::json& require(std::string_view key);
  const nlohmann::json* value_;
  std::string file_;
  std::string pointer_;
  std::set<std::string, std::less<>> used_;
};

class ArrayReader {
 public:
  ArrayReader(const nlohmann::json& value, std::string file, std::string pointer);
  std::size_t size() const { return value_->size(); }
  ObjectReader object(std::size_t index) const;
  std::string string(std::size_t index) const;
  double number(std::size_t index, Bound bound = Bound::kAny) const;
  [[noreturn]] void fail_here(const std::string& reason) const;
  const std::string& pointer() const { return pointer_; }

 private:
  const nlohmann::json* value_;
  std::string file_;
  std::string pointer_;
};

// Objects and arrays nested deeper than this are refused: no file of ours needs more than a dozen
// levels, and a bound keeps every recursive walk of a parsed value (dump, copy) off the end of the stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses a file as JSON, in time linear in its size. The file is read by core::read_input_file
// (a regular file of at most kind.max_bytes; its refusal becomes a LoadError). A syntax error
// becomes a LoadError naming the byte offset; a duplicate key or nesting deeper than kMaxJsonDepth
// one naming its JSON pointer.
nlohmann::json parse_json_file(const std::filesystem::path& path, const core::InputKind& kind = core::kDataFileInput);
nlohmann::json parse_json_text(std::string_view text, const std::string& name);

// Checks a number against a bound; returns the reason it fails or an empty string.
std::string check_bound(double value, Bound bound);

// One key as a JSON Pointer reference token (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string_view key);

}  // namespace tycoon::data
