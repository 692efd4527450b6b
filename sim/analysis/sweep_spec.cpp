#include "sim/analysis/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/data/json_reader.h"
#include "sim/data/safe_id.h"
#include "sim/serving/steady_state.h"

namespace tycoon::analysis {

namespace {

// "random 1024/1024": a workload's name when the spec gives none.
std::string sweep_workload_name(const WorkloadChoice& c) {
  return std::string(serving::kWorkloadNames[static_cast<std::size_t>(c.kind)]) + " " + std::to_string(c.input_tokens) +
         "/" + std::to_string(c.output_tokens);
}

// A sweep without workloads runs the benchmark's default shape at its default lengths.
WorkloadChoice sweep_default_workload() {
  WorkloadChoice c;
  c.kind = serving::WorkloadSpec{}.kind;
  const auto lengths = serving::default_lengths(c.kind);
  c.input_tokens = lengths.input_tokens;
  c.output_tokens = lengths.output_tokens;
  c.name = sweep_workload_name(c);
  c.pointer = "/workloads";
  return c;
}

using data::LoadError;

constexpr std::array<std::string_view, 23> kConfigFieldNames = {"hardware",
                                                                "model",
                                                                "engine",
                                                                "precision",
                                                                "kv_cache_dtype",
                                                                "tensor_parallel",
                                                                "expert_parallel",
                                                                "max_num_batched_tokens",
                                                                "max_num_seqs",
                                                                "spec_tokens",
                                                                "acceptance_length",
                                                                "prefix_caching",
                                                                "cuda_graphs",
                                                                "disaggregated",
                                                                "replicas",
                                                                "router",
                                                                "prefill_replicas",
                                                                "decode_replicas",
                                                                "decode_hardware",
                                                                "decode_precision",
                                                                "decode_tensor_parallel",
                                                                "decode_max_num_seqs",
                                                                "kv_link"};
constexpr std::string_view kGpuPriceField = "gpu_usd_per_hour";
// The axis of prefill/decode splits of a GPU budget, and the largest budget it enumerates (every
// split is a configuration, and at most a budget + 1 of them per budget).
constexpr std::string_view kXpydAxis = "xpyd_gpus";
constexpr int kMaxXpydGpus = 512;

bool is_config_field(std::string_view key) {
  return key == kGpuPriceField ||
         std::find(kConfigFieldNames.begin(), kConfigFieldNames.end(), key) != kConfigFieldNames.end();
}

const char* type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

std::string read_string(const nlohmann::json& v, const std::string& file, const std::string& ptr) {
  if (!v.is_string()) throw LoadError(file, ptr, std::string("expected a string, got ") + type_name(v));
  auto s = v.get<std::string>();
  if (s.empty()) throw LoadError(file, ptr, "must not be empty");
  return s;
}

std::int64_t read_integer(const nlohmann::json& v, const std::string& file, const std::string& ptr, std::int64_t lo,
                          std::int64_t hi) {
  if (!v.is_number()) throw LoadError(file, ptr, std::string("expected an integer, got ") + type_name(v));
  double x = v.get<double>();
  if (!std::isfinite(x) || std::floor(x) != x) throw LoadError(file, ptr, "expected an integer");
  if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
    throw LoadError(file, ptr, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return static_cast<std::int64_t>(x);
}

double read_number(const nlohmann::json& v, const std::string& file, const std::string& ptr, data::Bound bound) {
  if (!v.is_number()) throw LoadError(file, ptr, std::string("expected a number, got ") + type_name(v));
  double x = v.get<double>();
  if (auto why = data::check_bound(x, bound); !why.empty()) throw LoadError(file, ptr, why);
  return x;
}

Precision read_precision(const nlohmann::json& v, const std::string& file, const std::string& ptr) {
  auto s = read_string(v, file, ptr);
  auto p = parse_enum<Precision>(s, kPrecisionNames);
  if (!p) throw LoadError(file, ptr, "'" + s + "' is not one of: bf16, fp8, fp4, int4");
  return *p;
}

// Sets one field of `f` from a JSON value; the pointer names the value in the spec.
void set_field(ConfigFields& f, std::string_view key, const nlohmann::json& v, const std::string& file,
               const std::string& ptr) {
  auto small_int = [&](std::int64_t lo, std::int64_t hi) {
    return static_cast<int>(read_integer(v, file, ptr, lo, hi));
  };
  auto boolean = [&] {
    if (!v.is_boolean()) throw LoadError(file, ptr, std::string("expected a boolean, got ") + type_name(v));
    return v.get<bool>();
  };
  if (key == "hardware") {
    f.hardware = read_string(v, file, ptr);
  } else if (key == "model") {
    f.model = read_string(v, file, ptr);
  } else if (key == "engine") {
    f.recipe.engine = read_string(v, file, ptr);
  } else if (key == "precision") {
    f.recipe.precision = read_precision(v, file, ptr);
  } else if (key == "kv_cache_dtype") {
    f.recipe.kv_cache_dtype = read_precision(v, file, ptr);
  } else if (key == "tensor_parallel") {
    f.recipe.tensor_parallel = small_int(1, serving::kMaxBenchmarkParallel);
  } else if (key == "expert_parallel") {
    f.recipe.expert_parallel = small_int(1, serving::kMaxBenchmarkParallel);
  } else if (key == "max_num_batched_tokens") {
    f.recipe.max_num_batched_tokens = small_int(1, serving::kMaxBenchmarkBatchedTokens);
  } else if (key == "max_num_seqs") {
    f.recipe.max_num_seqs = small_int(1, serving::kMaxBenchmarkSeqs);
  } else if (key == "spec_tokens") {
    f.recipe.spec_draft_tokens = small_int(0, serving::kMaxBenchmarkDraftTokens);
  } else if (key == "acceptance_length") {
    double a = read_number(v, file, ptr, data::Bound::kPositive);
    if (a < 1.0) throw LoadError(file, ptr, "must be at least 1 (the bonus token)");
    f.recipe.spec_acceptance_length = a;
  } else if (key == "prefix_caching") {
    f.recipe.prefix_caching = boolean();
  } else if (key == "cuda_graphs") {
    f.recipe.cuda_graphs = boolean();
  } else if (key == kGpuPriceField) {
    f.gpu_usd_per_hour = read_number(v, file, ptr, data::Bound::kPositive);
  } else if (key == "disaggregated") {
    f.disaggregated = boolean();
  } else if (key == "replicas") {
    f.replicas = small_int(1, serving::kMaxBenchmarkReplicas);
  } else if (key == "router") {
    auto router = read_string(v, file, ptr);
    auto kind = parse_enum<serving::RouterKind>(router, serving::kRouterNames);
    if (!kind)
      throw LoadError(file, ptr, "'" + router + "' is not one of: round-robin, least-outstanding, prefix-affinity");
    f.recipe.router = *kind;
  } else if (key == "prefill_replicas") {
    f.prefill_replicas = small_int(1, serving::kMaxBenchmarkReplicas);
  } else if (key == "decode_replicas") {
    f.decode_replicas = small_int(1, serving::kMaxBenchmarkReplicas);
  } else if (key == "decode_hardware") {
    f.decode_hardware = read_string(v, file, ptr);
  } else if (key == "decode_precision") {
    f.decode.precision = read_precision(v, file, ptr);
  } else if (key == "decode_tensor_parallel") {
    f.decode.tensor_parallel = small_int(1, serving::kMaxBenchmarkParallel);
  } else if (key == "decode_max_num_seqs") {
    f.decode.max_num_seqs = small_int(1, serving::kMaxBenchmarkSeqs);
  } else if (key == "kv_link") {
    auto link = read_string(v, file, ptr);
    if (!parse_enum<serving::KvLinkKind>(link, serving::kKvLinkNames)) {
      throw LoadError(file, ptr, "'" + link + "' is not one of: nvlink, infiniband, ethernet");
    }
    f.kv_link = link;
  } else {
    throw LoadError(file, ptr, "unknown key");
  }
}

// A configuration object: deployment fields plus an optional label.
ConfigFields read_config_object(const nlohmann::json& j, const std::string& file, const std::string& ptr,
                                std::string* label) {
  if (!j.is_object()) throw LoadError(file, ptr, std::string("expected an object, got ") + type_name(j));
  ConfigFields f;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = ptr + "/" + data::escape_pointer_token(it.key());
    if (it.key() == "label" && label) {
      *label = read_string(it.value(), file, p);
    } else {
      set_field(f, it.key(), it.value(), file, p);
    }
  }
  return f;
}

std::string value_label(std::string_view key, const nlohmann::json& v) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kShort = {
      {{"tensor_parallel", "tp"},
       {"expert_parallel", "ep"},
       {"max_num_batched_tokens", "mbt"},
       {"max_num_seqs", "seqs"},
       {"spec_tokens", "spec"},
       {"acceptance_length", "accept"},
       {"gpu_usd_per_hour", "$/GPU-h"},
       {"disaggregated", "disagg"},
       {"prefill_replicas", "prefill"},
       {"decode_replicas", "decode"},
       {"decode_tensor_parallel", "decode tp"},
       {"kv_link", "link"}}};
  std::string name(key);
  for (const auto& [k, s] : kShort) {
    if (k == key) name = s;
  }
  if (key == "hardware" || key == "model" || key == "engine" || key == "precision") {
    return v.get<std::string>();
  }
  if (v.is_string()) return name + "=" + v.get<std::string>();
  if (v.is_boolean()) return name + "=" + (v.get<bool>() ? "on" : "off");
  return name + "=" + v.dump();
}

template <typename T, typename F>
std::vector<T> read_list(data::ObjectReader& r, std::string_view key, F&& read_one, std::vector<T> fallback) {
  if (!r.has(key)) {
    const auto keys = r.keys();
    if (std::find(keys.begin(), keys.end(), std::string(key)) != keys.end()) r.raw(key);  // an explicit null
    return fallback;
  }
  const auto& arr = r.raw(key);
  const std::string ptr = r.pointer_to(key);
  if (!arr.is_array()) throw LoadError(r.file(), ptr, std::string("expected an array, got ") + type_name(arr));
  if (arr.empty()) throw LoadError(r.file(), ptr, "must not be empty");
  std::vector<T> out;
  for (std::size_t i = 0; i < arr.size(); ++i) out.push_back(read_one(arr[i], ptr + "/" + std::to_string(i)));
  return out;
}

std::string hex64(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

void ConfigFields::merge(const ConfigFields& o) {
  auto take = [](auto& mine, const auto& theirs) {
    if (theirs) mine = theirs;
  };
  take(hardware, o.hardware);
  take(model, o.model);
  serving::overlay(recipe, o.recipe);
  take(gpu_usd_per_hour, o.gpu_usd_per_hour);
  take(disaggregated, o.disaggregated);
  take(replicas, o.replicas);
  take(prefill_replicas, o.prefill_replicas);
  take(decode_replicas, o.decode_replicas);
  take(decode_hardware, o.decode_hardware);
  serving::overlay(decode, o.decode);
  take(kv_link, o.kv_link);
}

std::string stable_hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return hex64(h);
}

namespace {

// A latency target in milliseconds, refused below `floor_ms` (no deployment serves `what` that fast):
// most likely seconds typed as milliseconds, and every point would miss it.
std::optional<double> latency_target_ms(data::ObjectReader& t, const char* key, double floor_ms, const char* what) {
  const auto v = t.optional_number(key, data::Bound::kPositive);
  if (v && *v < floor_ms) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%g ms is below %g ms, faster than any deployment serves %s: did you mean seconds? (%g s is "
                  "\"%s\": %g)",
                  *v, floor_ms, what, *v, key, *v * 1000);
    t.fail(key, buf);
  }
  return v;
}

}  // namespace

SweepSpec parse_sweep_spec(const nlohmann::json& j, const std::string& file) {
  SweepSpec s;
  s.file = file;
  data::ObjectReader r(j, file, "");
  if (r.integer("format_version") != 1) r.fail("format_version", "only format_version 1 is known");
  s.name = r.string("name");
  // The name is the default output folder (sweeps/<name>): a path or a quote must not get in.
  if (!data::is_safe_id(s.name)) r.fail("name", "'" + s.name + "' " + data::safe_id_rule());
  s.title = r.optional_string("title").value_or(s.name);
  s.description = r.optional_string("description").value_or("");

  if (r.has("base")) {
    s.base = read_config_object(r.raw("base"), file, "/base", nullptr);
  } else if (j.contains("base")) {
    r.raw("base");
  }

  s.configurations = read_list<SweepSpec::LabelledConfig>(r, "configurations",
                                                          [&](const nlohmann::json& v, const std::string& ptr) {
                                                            SweepSpec::LabelledConfig c;
                                                            c.fields = read_config_object(v, file, ptr, &c.label);
                                                            c.pointer = ptr;
                                                            return c;
                                                          },
                                                          {SweepSpec::LabelledConfig{"", {}, "/base"}});

  if (r.has("axes")) {
    const auto& axes = r.raw("axes");
    if (!axes.is_object()) throw LoadError(file, "/axes", std::string("expected an object, got ") + type_name(axes));
    for (auto it = axes.begin(); it != axes.end(); ++it) {
      const std::string ptr = "/axes/" + data::escape_pointer_token(it.key());
      if (it.key() == kXpydAxis) {
        if (!it->is_array()) throw LoadError(file, ptr, std::string("expected an array, got ") + type_name(*it));
        if (it->empty()) throw LoadError(file, ptr, "must not be empty");
        std::set<int> seen;
        for (std::size_t i = 0; i < it->size(); ++i) {
          const std::string p = ptr + "/" + std::to_string(i);
          const int gpus = static_cast<int>(read_integer((*it)[i], file, p, 2, kMaxXpydGpus));
          if (!seen.insert(gpus).second) throw LoadError(file, p, "GPU budgets must be distinct");
          s.xpyd_gpus.push_back({gpus, p});
        }
        continue;
      }
      if (!is_config_field(it.key())) {
        throw LoadError(file, ptr,
                        "unknown axis (axes take deployment fields; concurrency, workloads, prices and seeds "
                        "are top-level lists)");
      }
      if (!it->is_array()) throw LoadError(file, ptr, std::string("expected an array, got ") + type_name(*it));
      if (it->empty()) throw LoadError(file, ptr, "must not be empty");
      std::vector<SweepSpec::AxisValue> values;
      for (std::size_t i = 0; i < it->size(); ++i) {
        SweepSpec::AxisValue a;
        a.pointer = ptr + "/" + std::to_string(i);
        set_field(a.fields, it.key(), (*it)[i], file, a.pointer);
        a.label = value_label(it.key(), (*it)[i]);
        values.push_back(std::move(a));
      }
      s.axes.push_back(std::move(values));
    }
  } else if (j.contains("axes")) {
    r.raw("axes");
  }

  s.workloads = read_list<WorkloadChoice>(
      r, "workloads",
      [&](const nlohmann::json& v, const std::string& ptr) {
        data::ObjectReader w(v, file, ptr);
        WorkloadChoice c;
        c.pointer = ptr;
        c.kind = static_cast<serving::WorkloadKind>(w.choice("kind", serving::kWorkloadNames));
        if (c.kind == serving::WorkloadKind::kTrace) w.fail("kind", "trace replay is not a sweep workload");
        const auto lengths = serving::default_lengths(c.kind);  // the benchmark's, one rule
        c.input_tokens = lengths.input_tokens;
        c.output_tokens = lengths.output_tokens;
        if (auto i = w.optional_integer("input_tokens", data::Bound::kPositive)) c.input_tokens = *i;
        if (auto o = w.optional_integer("output_tokens", data::Bound::kPositive)) c.output_tokens = *o;
        if (c.kind == serving::WorkloadKind::kAgenticCoding && (w.has("input_tokens") || w.has("output_tokens"))) {
          w.fail_here("agentic-coding sessions model their own lengths: drop input_tokens/output_tokens");
        }
        c.name = w.optional_string("name").value_or(sweep_workload_name(c));
        w.finish();
        return c;
      },
      {sweep_default_workload()});

  s.concurrency = read_list<int>(r, "concurrency",
                                 [&](const nlohmann::json& v, const std::string& ptr) {
                                   return static_cast<int>(read_integer(v, file, ptr, 1, serving::kMaxBenchmarkUsers));
                                 },
                                 {});
  if (s.concurrency.empty()) r.fail("concurrency", "missing required field");

  s.prices = read_list<PriceChoice>(
      r, "prices",
      [&](const nlohmann::json& v, const std::string& ptr) {
        data::ObjectReader p(v, file, ptr);
        PriceChoice c;
        c.pointer = ptr;
        c.market_scale = p.optional_number("market_scale", data::Bound::kPositive);
        const bool absolute = p.has("input_usd_per_mtok") || p.has("output_usd_per_mtok");
        if (c.market_scale && absolute) p.fail_here("give market_scale or absolute prices, not both");
        if (!c.market_scale && !absolute) c.market_scale = 1.0;
        if (absolute) {
          c.input_usd_per_mtok = p.number("input_usd_per_mtok", data::Bound::kNonNegative);
          c.output_usd_per_mtok = p.number("output_usd_per_mtok", data::Bound::kNonNegative);
          c.cached_input_usd_per_mtok =
              p.optional_number("cached_input_usd_per_mtok", data::Bound::kNonNegative).value_or(c.input_usd_per_mtok);
          if (c.input_usd_per_mtok + c.output_usd_per_mtok <= 0) p.fail_here("prices must not all be zero");
        }
        char buf[64];
        std::snprintf(buf, sizeof buf, "market x%.3g", c.market_scale.value_or(1.0));
        c.name = p.optional_string("name").value_or(c.market_scale ? std::string(buf)
                                                                   : "$" + std::to_string(c.input_usd_per_mtok) + "/$" +
                                                                         std::to_string(c.output_usd_per_mtok));
        p.finish();
        return c;
      },
      {PriceChoice{"market", 1.0, 0, 0, 0, "/prices"}});

  s.seeds = read_list<std::uint64_t>(
      r, "seeds",
      [&](const nlohmann::json& v, const std::string& ptr) {
        return static_cast<std::uint64_t>(read_integer(v, file, ptr, 0, std::int64_t{1} << 53));
      },
      {1});
  {
    std::set<std::uint64_t> seen(s.seeds.begin(), s.seeds.end());
    if (seen.size() != s.seeds.size()) r.fail("seeds", "seeds must be distinct");
    std::set<int> c(s.concurrency.begin(), s.concurrency.end());
    if (c.size() != s.concurrency.size()) r.fail("concurrency", "values must be distinct");
  }
  // Names label series, CSV rows and charts, and `tycoon export --series` picks by them: two alike
  // would be told apart by nothing (a name left out is derived from the entry, so two identical
  // entries collide too).
  auto distinct_names = [&](const auto& list, const char* what) {
    std::map<std::string, std::string> first;
    for (const auto& x : list) {
      auto [it, fresh] = first.emplace(x.name, x.pointer);
      if (!fresh) {
        throw LoadError(file, x.pointer + "/name",
                        std::string(what) + " names must be distinct: '" + x.name + "' is also " + it->second +
                            "'s (a name left out is derived from the entry)");
      }
    }
  };
  distinct_names(s.workloads, "workload");
  distinct_names(s.prices, "price");

  if (auto v = r.optional_integer("requests_per_user", data::Bound::kPositive)) {
    if (*v > 100000) r.fail("requests_per_user", "must be at most 100000");
    s.requests_per_user = static_cast<int>(*v);
  }
  s.min_requests = r.optional_integer("min_requests", data::Bound::kNonNegative).value_or(0);
  s.max_requests = r.optional_integer("max_requests", data::Bound::kNonNegative).value_or(0);
  if (s.max_requests > 0 && s.min_requests > s.max_requests) r.fail("min_requests", "exceeds max_requests");
  if (r.has("contract")) s.contract = static_cast<Contract>(r.choice("contract", kContractNames));
  if (auto t = r.optional_object("target")) {
    s.target_p90_tok_per_s_per_user = t->optional_number("min_p90_tok_per_s_per_user", data::Bound::kPositive);
    if (auto m = t->optional_number("gross_margin", data::Bound::kNonNegative)) {
      if (*m >= 1) t->fail("gross_margin", "must be below 1 (a fraction: 0.4 is 40%)");
      s.target_gross_margin = m;
    }
    s.target_max_p90_ttft_ms = latency_target_ms(*t, "max_p90_ttft_ms", kMinTtftTargetMs, "a first token");
    s.target_max_p99_ttft_ms = latency_target_ms(*t, "max_p99_ttft_ms", kMinTtftTargetMs, "a first token");
    s.target_max_p90_tpot_ms = latency_target_ms(*t, "max_p90_tpot_ms", kMinTpotTargetMs, "a next token");
    if (auto f = t->optional_number("max_failed_share", data::Bound::kNonNegative)) {
      if (*f > 1) t->fail("max_failed_share", "must be at most 1 (a fraction: 0.01 is 1%)");
      s.target_max_failed_share = f;
    }
    t->finish();
  }
  r.finish();
  // Copied only now that every key was read and checked (the copy recurses; the spec is shallow).
  s.canonical = j;
  return s;
}

SweepSpec load_sweep_spec(const std::filesystem::path& path) {
  return parse_sweep_spec(data::parse_json_file(path, core::kSweepSpecInput), path.string());
}

namespace {

std::int64_t requests_for(const SweepSpec& s, int concurrency) {
  std::int64_t n = static_cast<std::int64_t>(s.requests_per_user) * concurrency;
  n = std::max(n, s.min_requests);
  if (s.max_requests > 0) n = std::min(n, s.max_requests);
  return std::max<std::int64_t>(n, 1);
}

// A configuration being built: the fields merged so far, its label and its most specific pointer.
struct Partial {
  ConfigFields fields;
  std::string label;
  std::string pointer;
};

std::string join_label(const std::string& a, const std::string& b) { return a.empty() ? b : a + " " + b; }

// Every partial crossed with the xpyd_gpus axis (SweepSpec::xpyd_gpus): per budget, the aggregated
// fleet that fills it and each xPyD split that fills it exactly, each pool's GPUs per replica
// taken from the configuration as resolved (its fields over the recipe). A split the deployment
// plan refuses (the decode pool's KV cache does not fit, a link that cannot reach) is left out
// with a note; a budget no configuration fills is refused.
std::vector<Partial> xpyd_partials(const SweepSpec& spec, const data::Catalog& catalog,
                                   const std::vector<Partial>& partials, std::vector<std::string>& notes) {
  std::vector<Partial> out;
  for (const auto& p : partials) {
    const auto& f = p.fields;
    if (f.disaggregated || f.replicas || f.prefill_replicas || f.decode_replicas) {
      throw LoadError(spec.file, p.pointer,
                      (p.label.empty() ? std::string() : p.label + ": ") +
                          "the xpyd_gpus axis sets disaggregated, replicas, prefill_replicas and decode_replicas "
                          "itself: drop them here");
    }
    ConfigFields one_each = f;
    one_each.disaggregated = true;
    one_each.prefill_replicas = 1;
    one_each.decode_replicas = 1;
    const ResolvedConfig trial = resolve_config(spec, catalog, one_each, join_label(p.label, "1P1D"), p.pointer);
    const int prefill_gpus = trial.deployment().gpus_per_replica();
    const int decode_gpus = trial.disaggregation()->decode.deployment.gpus_per_replica();
    for (const auto& budget : spec.xpyd_gpus) {
      const std::string tag = std::to_string(budget.gpus) + " GPUs";
      std::size_t added = 0;
      if (budget.gpus % prefill_gpus == 0) {  // the aggregated fleet of the same GPUs
        Partial q = p;
        q.fields.decode_hardware.reset();
        q.fields.decode = serving::ServingOverrides{};
        q.fields.kv_link.reset();
        q.fields.replicas = budget.gpus / prefill_gpus;
        q.label = join_label(p.label, tag + " aggregated x" + std::to_string(*q.fields.replicas));
        q.pointer = budget.pointer;
        // Its own resolution must spend the budget too (a recipe whose aggregated TP differs from
        // its prefill pool's would not).
        if (resolve_config(spec, catalog, q.fields, q.label, q.pointer).num_gpus() == budget.gpus) {
          out.push_back(std::move(q));
          ++added;
        } else {
          notes.push_back(q.label + ": its replicas do not spend " + tag + " (left out of " + budget.pointer + ")");
        }
      }
      for (int x = 1; x * prefill_gpus + decode_gpus <= budget.gpus; ++x) {
        const int rest = budget.gpus - x * prefill_gpus;
        if (rest % decode_gpus != 0) continue;
        Partial q = p;
        q.fields = one_each;
        q.fields.prefill_replicas = x;
        q.fields.decode_replicas = rest / decode_gpus;
        q.label = join_label(p.label, tag + " " + std::to_string(x) + "P" + std::to_string(rest / decode_gpus) + "D");
        q.pointer = budget.pointer;
        try {
          (void)resolve_config(spec, catalog, q.fields, q.label, q.pointer);
        } catch (const LoadError& e) {
          notes.push_back(e.reason() + " (left out of " + budget.pointer + ")");
          continue;
        }
        out.push_back(std::move(q));
        ++added;
      }
      if (added == 0) {
        throw LoadError(spec.file, budget.pointer,
                        (p.label.empty() ? std::string() : p.label + ": ") +
                            "no aggregated fleet or xPyD split fills " + tag + " (prefill " +
                            std::to_string(prefill_gpus) + ", decode " + std::to_string(decode_gpus) +
                            " GPUs per replica)");
      }
    }
  }
  return out;
}

}  // namespace

ExpandedSweep expand_sweep(const SweepSpec& spec, const data::Catalog& catalog) {
  ExpandedSweep out;
  out.spec_hash = stable_hash(spec.canonical.dump());
  // Ids first, each at the place it was written (a bad id must not be blamed on another axis).
  auto check_ids = [&](const ConfigFields& f, const std::string& pointer) {
    auto bad = [&](const char* what, const std::string& id, const char* list) {
      throw LoadError(spec.file, pointer, std::string("unknown ") + what + " '" + id + "' (tycoon list " + list + ")");
    };
    if (f.model && !catalog.find_model(*f.model)) bad("model", *f.model, "models");
    if (f.hardware && !catalog.find_accelerator(*f.hardware)) bad("hardware", *f.hardware, "hardware");
    if (f.recipe.engine && !catalog.find_engine(*f.recipe.engine)) bad("engine", *f.recipe.engine, "engines");
  };
  check_ids(spec.base, "/base");
  for (const auto& c : spec.configurations) check_ids(c.fields, c.pointer);
  for (const auto& axis : spec.axes) {
    for (const auto& v : axis) check_ids(v.fields, v.pointer);
  }
  // Configurations x every axis; axes in the order of their names (JSON objects are unordered), the
  // last varying fastest; the xpyd_gpus axis last.
  std::vector<Partial> partials;
  for (std::size_t i = 0; i < spec.configurations.size(); ++i) {
    const auto& c = spec.configurations[i];
    Partial p{spec.base, c.label, c.pointer};
    p.fields.merge(c.fields);
    partials.push_back(std::move(p));
  }
  // The grid's size before it is built: axes of 10 values each multiply into 10^8 configurations
  // (memory and minutes) long before the points are counted below.
  constexpr std::size_t kMaxPoints = 1000000;
  {
    double size = static_cast<double>(partials.size()) * static_cast<double>(spec.workloads.size()) *
                  static_cast<double>(spec.concurrency.size()) * static_cast<double>(spec.seeds.size());
    for (const auto& axis : spec.axes) size *= static_cast<double>(axis.size());
    // Each budget yields at most budget - 1 splits and one aggregated fleet.
    double splits = 0;
    for (const auto& b : spec.xpyd_gpus) splits += b.gpus;
    if (!spec.xpyd_gpus.empty()) size *= splits;
    if (size > static_cast<double>(kMaxPoints)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g", size);
      throw LoadError(spec.file, "",
                      std::string("the grid has ") + buf + " points (at most " + std::to_string(kMaxPoints) + ")");
    }
  }
  for (const auto& axis : spec.axes) {
    std::vector<Partial> next;
    for (const auto& p : partials) {
      for (const auto& v : axis) {
        Partial q = p;
        q.fields.merge(v.fields);
        q.label += (q.label.empty() ? "" : " ") + v.label;
        q.pointer = v.pointer;  // the most specific source of this combination
        next.push_back(std::move(q));
      }
    }
    partials = std::move(next);
  }
  if (!spec.xpyd_gpus.empty()) partials = xpyd_partials(spec, catalog, partials, out.notes);
  const std::size_t num_points = partials.size() * spec.workloads.size() * spec.concurrency.size() * spec.seeds.size();
  if (num_points > kMaxPoints) {
    throw LoadError(
        spec.file, "",
        "the grid has " + std::to_string(num_points) + " points (at most " + std::to_string(kMaxPoints) + ")");
  }
  std::set<std::string> labels;
  for (auto& p : partials) {
    if (p.label.empty()) p.label = p.fields.model.value_or("?") + " on " + p.fields.hardware.value_or("?");
    ResolvedConfig c = resolve_config(spec, catalog, p.fields, p.label, p.pointer);
    if (!labels.insert(c.label).second) {
      throw LoadError(spec.file, p.pointer, "two configurations are both labelled '" + c.label + "': give labels");
    }
    out.configs.push_back(std::move(c));
  }
  for (std::size_t ci = 0; ci < out.configs.size(); ++ci) {
    const auto& c = out.configs[ci];
    for (std::size_t wi = 0; wi < spec.workloads.size(); ++wi) {
      const auto& w = spec.workloads[wi];
      if (w.kind != serving::WorkloadKind::kAgenticCoding &&
          c.deployment().model->beyond_context_window(w.input_tokens + w.output_tokens)) {
        throw LoadError(spec.file, w.pointer,
                        w.name + ": " + std::to_string(w.input_tokens + w.output_tokens) + " tokens exceed " +
                            c.deployment().model->id + "'s context window of " +
                            std::to_string(c.deployment().model->max_context_tokens));
      }
      out.series.push_back(Series{ci, wi, spec.workloads.size() > 1 ? c.label + " · " + w.name : c.label});
    }
  }
  for (std::size_t si = 0; si < out.series.size(); ++si) {
    const auto& se = out.series[si];
    nlohmann::json base = out.configs[se.config].describe();
    // Rent and power do not change the simulation: a new price re-prices finished points on --resume.
    base.erase("label");
    base.erase("gpu_usd_per_hour");
    base.erase("gpu_price_source");
    base.erase("all_in_power_watts");
    const auto& w = spec.workloads[se.workload];
    base["workload"] = {{"kind", std::string(serving::kWorkloadNames[static_cast<std::size_t>(w.kind)])},
                        {"input_tokens", w.input_tokens},
                        {"output_tokens", w.output_tokens}};
    for (int conc : spec.concurrency) {
      for (std::uint64_t seed : spec.seeds) {
        SweepPoint p;
        p.series = si;
        p.concurrency = conc;
        p.seed = seed;
        p.num_requests = requests_for(spec, conc);
        nlohmann::json key = base;
        key["concurrency"] = conc;
        key["seed"] = seed;
        key["num_requests"] = p.num_requests;
        // The steady-state rule the point runs under: a different rule gives different figures.
        key["steady_state"] = {{"max_relative_half_width", serving::kSteadyRelativeHalfWidth},
                               {"max_requests_per_user", serving::kSteadyMaxRequestsPerUser}};
        p.hash = stable_hash(key.dump());
        out.points.push_back(std::move(p));
      }
    }
  }
  return out;
}

serving::ServingConfig serving_config(const ExpandedSweep& sweep, const SweepSpec& spec, const SweepPoint& p) {
  const auto& se = sweep.series[p.series];
  const auto& w = spec.workloads[se.workload];
  serving::WorkloadSpec workload;
  workload.kind = w.kind;
  workload.input_tokens = w.input_tokens;
  workload.output_tokens = w.output_tokens;
  return sweep.configs[se.config].plan.closed_loop(workload, p.concurrency, p.num_requests, p.seed);
}

}  // namespace tycoon::analysis
