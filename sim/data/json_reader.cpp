#include "sim/data/json_reader.h"

#include <cmath>

namespace tycoon::data {

std::string escape_pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

const char* type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

}  // namespace

LoadError::LoadError(std::string file, std::string pointer, std::string reason)
    : std::runtime_error(file + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + reason),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      reason_(std::move(reason)) {}

std::string check_bound(double value, Bound bound) {
  if (!std::isfinite(value)) return "must be a finite number";
  switch (bound) {
    case Bound::kAny:
      return {};
    case Bound::kNonNegative:
      return value < 0 ? "must not be negative" : std::string{};
    case Bound::kPositive:
      return value <= 0 ? "must be positive" : std::string{};
    case Bound::kUnit:
      return (value <= 0 || value > 1) ? "must be in (0, 1]" : std::string{};
  }
  return {};
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!value.is_object()) {
    throw LoadError(file_, pointer_, std::string("expected an object, got ") + type_name(value));
  }
}

std::string ObjectReader::pointer_to(std::string_view key) const { return pointer_ + "/" + escape_pointer_token(key); }

void ObjectReader::fail(std::string_view key, const std::string& reason) const {
  throw LoadError(file_, pointer_to(key), reason);
}

void ObjectReader::fail_here(const std::string& reason) const { throw LoadError(file_, pointer_, reason); }

bool ObjectReader::has(std::string_view key) const {
  auto it = value_->find(std::string(key));
  return it != value_->end() && !it->is_null();
}

std::vector<std::string> ObjectReader::keys() const {
  std::vector<std::string> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) out.push_back(it.key());
  return out;
}

const nlohmann::json& ObjectReader::require(std::string_view key) {
  auto it = value_->find(std::string(key));
  if (it == value_->end()) fail(key, "missing required field");
  used_.insert(std::string(key));
  return *it;
}

const nlohmann::json& ObjectReader::raw(std::string_view key) { return require(key); }

double ObjectReader::number(std::string_view key, Bound bound) {
  const auto& v = require(key);
  if (!v.is_number()) fail(key, std::string("expected a number, got ") + type_name(v));
  double x = v.get<double>();
  if (auto why = check_bound(x, bound); !why.empty()) fail(key, why);
  return x;
}

std::optional<double> ObjectReader::optional_number(std::string_view key, Bound bound) {
  if (!value_->contains(std::string(key))) return std::nullopt;
  if ((*value_)[std::string(key)].is_null()) {
    used_.insert(std::string(key));
    return std::nullopt;
  }
  return number(key, bound);
}

std::int64_t ObjectReader::integer(std::string_view key, Bound bound) {
  const auto& v = require(key);
  if (!v.is_number()) fail(key, std::string("expected an integer, got ") + type_name(v));
  // Above 2^53 a double no longer holds every integer: such a figure is refused as too large
  // (the integer kinds nlohmann reads exactly are held to the same bound).
  constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53
  constexpr std::uint64_t kMaxExact = std::uint64_t{1} << 53;
  const bool integer_too_large = (v.is_number_unsigned() && v.get<std::uint64_t>() > kMaxExact) ||
                                 (v.is_number_integer() && !v.is_number_unsigned() &&
                                  (v.get<std::int64_t>() > static_cast<std::int64_t>(kMaxExact) ||
                                   v.get<std::int64_t>() < -static_cast<std::int64_t>(kMaxExact)));
  double x = v.get<double>();
  if (integer_too_large || !std::isfinite(x) || std::fabs(x) > kMaxExactInteger) {
    fail(key, "too large: an integer here must be at most 2^53 (9007199254740992) in magnitude");
  }
  if (std::floor(x) != x) fail(key, "expected an integer");
  if (auto why = check_bound(x, bound); !why.empty()) fail(key, why);
  return static_cast<std::int64_t>(x);
}

std::optional<std::int64_t> ObjectReader::optional_integer(std::string_view key, Bound bound) {
  if (!value_->contains(std::string(key))) return std::nullopt;
  if ((*value_)[std::string(key)].is_null()) {
    used_.insert(std::string(key));
    return std::nullopt;
  }
  return integer(key, bound);
}

std::string ObjectReader::string(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_string()) fail(key, std::string("expected a string, got ") + type_name(v));
  return v.get<std::string>();
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  if (!value_->contains(std::string(key))) return std::nullopt;
  return string(key);
}

bool ObjectReader::boolean(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_boolean()) fail(key, std::string("expected true or false, got ") + type_name(v));
  return v.get<bool>();
}

std::optional<bool> ObjectReader::optional_boolean(std::string_view key) {
  if (!value_->contains(std::string(key))) return std::nullopt;
  return boolean(key);
}

std::vector<std::string> ObjectReader::string_array(std::string_view key) {
  ArrayReader a = array(key);
  std::vector<std::string> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(a.string(i));
  return out;
}

ObjectReader ObjectReader::object(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_object()) fail(key, std::string("expected an object, got ") + type_name(v));
  return ObjectReader(v, file_, pointer_to(key));
}

std::optional<ObjectReader> ObjectReader::optional_object(std::string_view key) {
  if (!value_->contains(std::string(key))) return std::nullopt;
  if ((*value_)[std::string(key)].is_null()) {
    used_.insert(std::string(key));
    return std::nullopt;
  }
  return object(key);
}

ArrayReader ObjectReader::array(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_array()) fail(key, std::string("expected an array, got ") + type_name(v));
  return ArrayReader(v, file_, pointer_to(key));
}

std::size_t ObjectReader::choice(std::string_view key, std::span<const std::string_view> names) {
  std::string s = string(key);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return i;
  }
  std::string allowed;
  for (std::size_t i = 0; i < names.size(); ++i) {
    allowed += (i ? ", " : "") + std::string(names[i]);
  }
  fail(key, "'" + s + "' is not one of: " + allowed);
}

void ObjectReader::finish() const {
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (!used_.contains(it.key())) throw LoadError(file_, pointer_to(it.key()), "unknown key");
  }
}

ArrayReader::ArrayReader(const nlohmann::json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!value.is_array()) {
    throw LoadError(file_, pointer_, std::string("expected an array, got ") + type_name(value));
  }
}

void ArrayReader::fail_here(const std::string& reason) const { throw LoadError(file_, pointer_, reason); }

ObjectReader ArrayReader::object(std::size_t index) const {
  return ObjectReader((*value_)[index], file_, pointer_ + "/" + std::to_string(index));
}

std::string ArrayReader::string(std::size_t index) const {
  const auto& v = (*value_)[index];
  if (!v.is_string()) {
    throw LoadError(file_, pointer_ + "/" + std::to_string(index),
                    std::string("expected a string, got ") + type_name(v));
  }
  return v.get<std::string>();
}

double ArrayReader::number(std::size_t index, Bound bound) const {
  const auto& v = (*value_)[index];
  std::string ptr = pointer_ + "/" + std::to_string(index);
  if (!v.is_number()) throw LoadError(file_, ptr, std::string("expected a number, got ") + type_name(v));
  double x = v.get<double>();
  if (auto why = check_bound(x, bound); !why.empty()) throw LoadError(file_, ptr, why);
  return x;
}

namespace {

// Builds the value from nlohmann's SAX events, as its own DOM parser does, and refuses while
// parsing what that parser accepts: a duplicate key (nlohmann keeps the last of two silently) and
// nesting deeper than kMaxJsonDepth (dump(), copy and comparison recurse). Each event costs
// O(log keys) at most, so parsing is linear in the text: nlohmann's callback parser, which this
// replaces, rescanned the parent array at the end of every object, quadratic in an array of objects.
class StrictJsonBuilder {
 public:
  using json = nlohmann::json;
  explicit StrictJsonBuilder(const std::string& name) : name_(name) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool v) { return add(json(v)); }
  bool number_integer(json::number_integer_t v) { return add(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return add(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) { return add(json(v)); }
  bool string(json::string_t& v) { return add(json(std::move(v))); }
  bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    Frame& f = open_.back();
    f.key = std::move(k);
    if (f.value->contains(f.key)) throw LoadError(name_, pointer(), "duplicate key");
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/, const nlohmann::detail::exception& e) {
    error_ = e.what();
    return false;
  }

  json& result() { return root_; }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    json* value;      // the open object or array
    std::string key;  // objects: the key being read
  };

  // Where the parser is, as a JSON pointer: the key being read in each open object, the last
  // element added to each open array.
  std::string pointer() const {
    std::string out;
    for (const Frame& f : open_) {
      out += "/" + (f.value->is_array() ? std::to_string(f.value->size() - 1) : escape_pointer_token(f.key));
    }
    return out;
  }

  // Adds `v` to the innermost open value (or makes it the root); returns where it now lives.
  json* place(json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *open_.back().value;
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[open_.back().key];
    slot = std::move(v);
    return &slot;
  }

  bool add(json&& v) {
    place(std::move(v));
    return true;
  }

  bool open(json&& v) {
    json* placed = place(std::move(v));
    if (open_.size() >= kMaxJsonDepth) {
      throw LoadError(name_, pointer(), "nested deeper than " + std::to_string(kMaxJsonDepth) + " objects or arrays");
    }
    open_.push_back({placed, {}});
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  const std::string& name_;
  json root_;
  std::vector<Frame> open_;
  std::string error_;
};

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& name) {
  StrictJsonBuilder builder(name);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const nlohmann::json::exception& e) {
    builder.parse_error(0, {}, e);
  }
  if (!ok) {  // syntax errors and number overflow
    const std::string& what = builder.error();
    auto pos = what.find("parse error");
    throw LoadError(name, "", "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
  }
  return std::move(builder.result());
}

nlohmann::json parse_json_file(const std::filesystem::path& path, const core::InputKind& kind) {
  std::string text;
  try {
    text = core::read_input_file(path, kind);
  } catch (const core::FileReadError& e) {
    throw LoadError(e.file(), "", e.reason());
  }
  return parse_json_text(text, path.string());
}

}  // namespace tycoon::data
