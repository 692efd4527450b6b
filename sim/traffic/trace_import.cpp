#include "sim/traffic/trace_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/core/input_file.h"
#include "sim/core/rng.h"
#include "sim/data/json_reader.h"

namespace tycoon::traffic {

namespace {

constexpr std::uint64_t kMooncakeScope = 0x4D4F4F4E43414B45ull;  // all Mooncake ids share one scope
constexpr std::uint64_t kAgentxScope = 0xA6E47C0417E5ull;

struct Line {
  std::string_view text;
  int number = 0;
};

// Non-blank lines, without their line ends.
std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  int n = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++n;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.push_back({line, n});
  }
  return out;
}

std::string where(const std::string& file, int line) { return file + ":" + std::to_string(line); }

[[noreturn]] void fail_line(const std::string& file, int line, const std::string& field, const std::string& reason) {
  throw data::LoadError(where(file, line), field.empty() ? "" : "/" + field, reason);
}

void require_entries(const Trace& t) {
  if (t.entries.empty()) throw data::LoadError(t.file, "", "the trace holds no request");
}

// Block ids of one request: non-negative integers, at most one per block of the prompt.
std::vector<std::uint64_t> read_hash_ids(data::ObjectReader& r, std::string_view key, std::int64_t input_tokens,
                                         std::int64_t block_tokens, std::uint64_t scope) {
  const nlohmann::json& v = r.raw(key);
  if (!v.is_array()) r.fail(key, "must be an array of block ids");
  const std::int64_t max_blocks = (input_tokens + block_tokens - 1) / block_tokens;
  if (static_cast<std::int64_t>(v.size()) > max_blocks) {
    r.fail(key, "holds " + std::to_string(v.size()) + " block ids, more than the " + std::to_string(max_blocks) +
                    " blocks of " + std::to_string(block_tokens) + " tokens that the prompt fills");
  }
  std::vector<std::uint64_t> ids;
  ids.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const nlohmann::json& x = v[i];
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0) {
      r.fail(key, "element " + std::to_string(i) + " must be a non-negative integer block id");
    }
    ids.push_back(core::hash_combine(scope, static_cast<std::uint64_t>(x.get<std::int64_t>())));
  }
  return ids;
}

// ---- Azure: civil date and time to seconds (proleptic Gregorian; days_from_civil) ----

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// "YYYY-MM-DD HH:MM:SS[.fffffff]" (a 'T' separator is accepted too) to seconds since 1970.
std::optional<double> parse_timestamp(std::string_view s) {
  int y, mo, d, h, mi, se;
  if (s.size() < 19 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  double frac = 0;
  if (s.size() > 19) {
    if (s[19] != '.' || s.size() == 20) return std::nullopt;
    double scale = 0.1;
    for (std::size_t i = 20; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      frac += (s[i] - '0') * scale;
      scale /= 10;
    }
  }
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60 + se) + frac;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

std::int64_t parse_count(std::string_view s, const std::string& file, int line, const std::string& field,
                         std::int64_t min) {
  s = trim(s);
  std::int64_t v = 0;
  bool ok = !s.empty() && s.size() <= 12;
  for (char c : s) ok = ok && c >= '0' && c <= '9';
  if (!ok) fail_line(file, line, field, "must be a whole number of tokens, got \"" + std::string(s) + "\"");
  for (char c : s) v = v * 10 + (c - '0');
  if (v < min) {
    fail_line(file, line, field,
              "must be at least " + std::to_string(min) + (min == 1 ? " (the simulator serves no empty request)" : ""));
  }
  return v;
}

// ---- AgentX / kv-cache-tester: one conversation object ----

struct Pending {
  TraceEntry e;
  std::size_t order = 0;  // conversation order, then request order: breaks time ties
};

void read_conversation(const nlohmann::json& json, const std::string& where_, std::size_t conv_index,
                       std::vector<Pending>& out) {
  data::ObjectReader r(json, where_, "");
  const std::string id = r.string("id");
  if (id.empty()) r.fail("id", "must not be empty");
  const std::int64_t block = r.integer("block_size", data::Bound::kPositive);
  r.optional_integer("tool_tokens", data::Bound::kNonNegative);
  r.optional_integer("system_tokens", data::Bound::kNonNegative);
  if (r.has("models")) r.string_array("models");
  r.optional_string("hash_id_scope");  // AgentX salts every conversation's ids whatever the scope
  // The salt: AgentX's per-conversation cache busting (no prefix shared across conversations).
  const std::uint64_t scope = core::hash_combine(kAgentxScope, string_id(id));
  auto reqs = r.array("requests");
  if (reqs.size() == 0) r.fail("requests", "holds no request");
  double last_t = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    data::ObjectReader q = reqs.object(i);
    std::string type = q.optional_string("type").value_or("s");
    if (type == "subagent") {
      q.fail("type", "sub-agent markers are not replayed (use a trace without sub-agents, e.g. AgentX v0.2's)");
    }
    if (type != "s" && type != "n")
      q.fail("type", "must be \"s\" (streaming), \"n\" or \"subagent\", got \"" + type + "\"");
    TraceEntry e;
    e.arrival_s = q.number("t", data::Bound::kNonNegative);
    if (auto why = trace_arrival_problem(e.arrival_s); !why.empty()) q.fail("t", why);
    if (i > 0 && e.arrival_s < last_t) q.fail("t", "goes back in time within the conversation");
    last_t = e.arrival_s;
    e.input_tokens = q.integer("in", data::Bound::kPositive);
    e.output_tokens = q.integer("out", data::Bound::kNonNegative);
    if (e.output_tokens == 0) q.fail("out", "must be at least 1 (the simulator serves no empty request)");
    if (q.has("hash_ids")) e.block_ids = read_hash_ids(q, "hash_ids", e.input_tokens, block, scope);
    e.block_tokens = block;
    for (const char* k : {"model", "stop"}) q.optional_string(k);
    for (const char* k : {"input_types", "output_types"}) {
      if (q.has(k)) q.string_array(k);
    }
    for (const char* k : {"api_time", "think_time"}) q.optional_number(k, data::Bound::kNonNegative);
    q.finish();
    e.session_id = id;
    out.push_back({std::move(e), out.size()});
  }
  r.finish();
  (void)conv_index;
}

Trace finish_agentx(std::vector<Pending> pending, const std::string& file) {
  std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return a.e.arrival_s < b.e.arrival_s || (a.e.arrival_s == b.e.arrival_s && a.order < b.order);
  });
  Trace t;
  t.file = file;
  t.format = "agentx";
  t.entries.reserve(pending.size());
  for (auto& p : pending) t.entries.push_back(std::move(p.e));
  require_entries(t);
  return t;
}

}  // namespace

Trace parse_mooncake_trace(std::string_view text, const std::string& file) {
  Trace t;
  t.file = file;
  t.format = "mooncake";
  for (const Line& l : lines_of(text)) {
    const std::string w = where(file, l.number);
    auto json = data::parse_json_text(l.text, w);
    data::ObjectReader r(json, w, "");
    TraceEntry e;
    e.line = l.number;
    e.arrival_s = r.number("timestamp", data::Bound::kNonNegative) / 1000.0;  // milliseconds
    if (auto why = trace_arrival_problem(e.arrival_s); !why.empty()) r.fail("timestamp", why);
    e.input_tokens = r.integer("input_length", data::Bound::kPositive);
    e.output_tokens = r.integer("output_length", data::Bound::kPositive);
    if (r.has("hash_ids")) {
      e.block_ids = read_hash_ids(r, "hash_ids", e.input_tokens, kMooncakeBlockTokens, kMooncakeScope);
      e.block_tokens = kMooncakeBlockTokens;
    }
    r.finish();
    if (!t.entries.empty() && e.arrival_s < t.entries.back().arrival_s) {
      r.fail("timestamp", "goes back in time (line " + std::to_string(t.entries.back().line) + " is at " +
                              std::to_string(t.entries.back().arrival_s * 1000.0) + " ms)");
    }
    t.entries.push_back(std::move(e));
  }
  require_entries(t);
  return t;
}

Trace parse_azure_trace(std::string_view text, const std::string& file) {
  Trace t;
  t.file = file;
  t.format = "azure";
  auto lines = lines_of(text);
  if (lines.empty()) throw data::LoadError(file, "", "the trace holds no request");
  // The header names the columns; their order is the datasets' (2023 and 2024 files alike).
  std::string header(lines[0].text);
  header.erase(std::remove(header.begin(), header.end(), ' '), header.end());
  if (header != "TIMESTAMP,ContextTokens,GeneratedTokens") {
    fail_line(file, lines[0].number, "",
              "an Azure LLM inference trace starts with the header TIMESTAMP,ContextTokens,GeneratedTokens");
  }
  double t0 = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const Line& l = lines[i];
    std::vector<std::string_view> cols;
    std::size_t pos = 0;
    while (true) {
      std::size_t c = l.text.find(',', pos);
      cols.push_back(l.text.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos));
      if (c == std::string_view::npos) break;
      pos = c + 1;
    }
    if (cols.size() != 3) {
      fail_line(file, l.number, "", "expected 3 comma-separated columns, got " + std::to_string(cols.size()));
    }
    auto ts = parse_timestamp(trim(cols[0]));
    if (!ts) {
      fail_line(file, l.number, "TIMESTAMP",
                "must be a date and time like 2023-11-16 18:15:46.6805900, got \"" + std::string(trim(cols[0])) + "\"");
    }
    if (t.entries.empty()) t0 = *ts;
    TraceEntry e;
    e.line = l.number;
    e.arrival_s = *ts - t0;
    if (auto why = trace_arrival_problem(e.arrival_s); !why.empty()) fail_line(file, l.number, "TIMESTAMP", why);
    e.input_tokens = parse_count(cols[1], file, l.number, "ContextTokens", 1);
    e.output_tokens = parse_count(cols[2], file, l.number, "GeneratedTokens", 1);
    if (e.arrival_s < 0 || (!t.entries.empty() && e.arrival_s < t.entries.back().arrival_s)) {
      fail_line(file, l.number, "TIMESTAMP",
                "goes back in time (line " +
                    std::to_string(t.entries.empty() ? lines[1].number : t.entries.back().line) + " is later)");
    }
    t.entries.push_back(e);
  }
  require_entries(t);
  return t;
}

Trace parse_agentx_trace(std::string_view text, const std::string& file) {
  std::vector<Pending> pending;
  auto lines = lines_of(text);
  // A whole file holding one (pretty-printed) conversation, or JSONL: one conversation a line.
  bool one_object = false;
  if (!lines.empty()) {
    try {
      (void)data::parse_json_text(lines[0].text, file);
    } catch (const data::LoadError&) {
      one_object = true;
    }
  }
  if (one_object) {
    auto json = data::parse_json_text(text, file);
    read_conversation(json, file, 0, pending);
  } else {
    std::size_t k = 0;
    for (const Line& l : lines) {
      const std::string w = where(file, l.number);
      auto json = data::parse_json_text(l.text, w);
      read_conversation(json, w, k++, pending);
    }
  }
  return finish_agentx(std::move(pending), file);
}

Trace import_agentx_directory(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) throw data::LoadError(dir.string(), "", "cannot read the folder: " + ec.message());
  for (const auto& f : it) {
    if (f.path().extension() == ".json") files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw data::LoadError(dir.string(), "", "the directory holds no .json conversation");
  // Every conversation is a regular file in the folder (a link or a device is refused by name,
  // never read), and the folder as a whole holds at most a trace's worth of bytes.
  std::vector<Pending> pending;
  std::uint64_t total_bytes = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string text;
    try {
      text = core::read_input_file(files[i], core::kTraceInput, core::Links::kRefuse);
    } catch (const core::FileReadError& e) {
      throw data::LoadError(e.file(), "", e.reason());
    }
    total_bytes += text.size();
    if (total_bytes > core::kTraceInput.max_bytes) {
      throw data::LoadError(dir.string(), "",
                            "its conversations hold more than " + core::format_bytes(core::kTraceInput.max_bytes) +
                                ", the limit for a trace");
    }
    auto json = data::parse_json_text(text, files[i].string());
    const std::size_t before = pending.size();
    read_conversation(json, files[i].string(), i, pending);
    for (std::size_t j = before; j < pending.size(); ++j) pending[j].order = j;
  }
  return finish_agentx(std::move(pending), dir.string());
}

Trace parse_any_trace(std::string_view text, const std::string& file) {
  // A UTF-8 byte order mark (editors on Windows write one) is not part of the first line.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  auto lines = lines_of(text);
  if (lines.empty()) throw data::LoadError(file, "", "the trace holds no request");
  std::string_view first = lines[0].text;
  const auto start = first.find_first_not_of(" \t");
  if (first.substr(start).starts_with("TIMESTAMP")) return parse_azure_trace(text, file);
  if (first[start] != '{') {
    fail_line(file, lines[0].number, "",
              "not a trace: expected a JSON object per line (ours, Mooncake, AgentX) or an Azure CSV header");
  }
  // The first line's keys name the format; a first line that is not whole JSON is a
  // pretty-printed AgentX conversation.
  nlohmann::json json;
  try {
    json = data::parse_json_text(first, where(file, lines[0].number));
  } catch (const data::LoadError&) {
    return parse_agentx_trace(text, file);
  }
  if (json.is_object()) {
    if (json.contains("requests")) return parse_agentx_trace(text, file);
    if (json.contains("timestamp") || json.contains("input_length") || json.contains("hash_ids")) {
      return parse_mooncake_trace(text, file);
    }
  }
  return parse_trace(text, file);
}

}  // namespace tycoon::traffic
