#include "sim/data/json_reader.h"

#include <cmath>
#include <fstream>
#include <sstream>

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
  double x = v.get<double>();
  if (!std::isfinite(x) || std::floor(x) != x || std::fabs(x) > 9.0e15) fail(key, "expected an integer");
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

// Where the parser is: one frame per open object or array, for the JSON pointer of an error and
// the duplicate-key check. The parser itself is iterative; this keeps it bounded too.
struct OpenValue {
  bool is_array = false;
  std::size_t index = 0;       // arrays: the element being read
  std::string key;             // objects: the key being read
  std::set<std::string> keys;  // objects: keys seen so far
};

std::string pointer_of(const std::vector<OpenValue>& open) {
  std::string out;
  for (const auto& v : open) out += "/" + (v.is_array ? std::to_string(v.index) : escape_pointer_token(v.key));
  return out;
}

// An element of the innermost array is complete: the next one gets the next index.
void element_done(std::vector<OpenValue>& open) {
  if (!open.empty() && open.back().is_array) ++open.back().index;
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& name) {
  // nlohmann keeps the last of two equal keys silently, and nests as deep as the text does (and
  // its dump(), copy and comparison recurse): the callback refuses both while parsing.
  std::vector<OpenValue> open;
  auto callback = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (open.size() >= kMaxJsonDepth) {
          throw LoadError(name, pointer_of(open),
                          "nested deeper than " + std::to_string(kMaxJsonDepth) + " objects or arrays");
        }
        open.emplace_back();
        open.back().is_array = event == E::array_start;
        break;
      case E::object_end:
      case E::array_end:
        if (!open.empty()) open.pop_back();
        element_done(open);
        break;
      case E::key:
        if (!open.empty()) {
          open.back().key = parsed.get<std::string>();
          if (!open.back().keys.insert(open.back().key).second) {
            throw LoadError(name, pointer_of(open), "duplicate key");
          }
        }
        break;
      case E::value:
        element_done(open);
        break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::exception& e) {  // syntax errors and number overflow
    std::string what = e.what();
    auto pos = what.find("parse error");
    throw LoadError(name, "", "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
  }
}

nlohmann::json parse_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LoadError(path.string(), "", "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path.string());
}

}  // namespace tycoon::data
