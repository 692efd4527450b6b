#include "sim/traffic/trace.h"

#include <cstdio>

#include "sim/core/input_file.h"
#include "sim/core/rng.h"
#include "sim/data/json_reader.h"
#include "sim/traffic/trace_import.h"

namespace tycoon::traffic {

std::uint64_t string_id(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return core::mix64(h);
}

std::string trace_arrival_problem(double arrival_s) {
  if (arrival_s <= kMaxTraceArrivalS) return {};
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "too large: %.3g s; a trace's arrivals are at most %.0e s (about 31 years) after its start", arrival_s,
                kMaxTraceArrivalS);
  return buf;
}

Trace parse_trace(std::string_view text, const std::string& file) {
  Trace t;
  t.file = file;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      if (end == text.size()) break;
      continue;
    }
    const std::string where = file + ":" + std::to_string(line_no);
    auto json = data::parse_json_text(line, where);
    data::ObjectReader r(json, where, "");
    TraceEntry e;
    e.line = line_no;
    e.arrival_s = r.number("arrival_s", data::Bound::kNonNegative);
    if (auto why = trace_arrival_problem(e.arrival_s); !why.empty()) r.fail("arrival_s", why);
    e.input_tokens = r.integer("input_tokens", data::Bound::kPositive);
    e.output_tokens = r.integer("output_tokens", data::Bound::kPositive);
    if (auto s = r.optional_string("session_id")) {
      if (s->empty()) r.fail("session_id", "must not be empty");
      e.session_id = *s;
    }
    auto prefix_id = r.optional_string("prefix_id");
    auto prefix_tokens = r.optional_integer("prefix_tokens", data::Bound::kPositive);
    if (prefix_id.has_value() != prefix_tokens.has_value()) {
      r.fail(prefix_id ? "prefix_tokens" : "prefix_id", "prefix_id and prefix_tokens come together");
    }
    if (prefix_id) {
      if (prefix_id->empty()) r.fail("prefix_id", "must not be empty");
      if (*prefix_tokens > e.input_tokens) r.fail("prefix_tokens", "must not exceed input_tokens");
      e.prefix_id = *prefix_id;
      e.prefix_tokens = *prefix_tokens;
    }
    r.finish();
    if (!t.entries.empty() && e.arrival_s < t.entries.back().arrival_s) {
      r.fail("arrival_s", "goes back in time (line " + std::to_string(t.entries.back().line) + " arrives at " +
                              std::to_string(t.entries.back().arrival_s) + " s)");
    }
    t.entries.push_back(std::move(e));
    if (end == text.size()) break;
  }
  if (t.entries.empty()) throw data::LoadError(file, "", "the trace holds no request");
  return t;
}

Trace load_trace(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return import_agentx_directory(path);
  std::string text;
  try {
    text = core::read_input_file(path, core::kTraceInput);
  } catch (const core::FileReadError& e) {
    throw data::LoadError(e.file(), "", e.reason());
  }
  return parse_any_trace(text, path.string());
}

}  // namespace tycoon::traffic
