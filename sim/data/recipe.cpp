#include "sim/data/recipe.h"

#include "sim/data/json_reader.h"

namespace tycoon::data {

Recipe load_recipe(const std::filesystem::path& path) {
  auto json = parse_json_file(path);
  ObjectReader r(json, path.string(), "");
  Recipe x;
  x.file = path.string();
  x.id = path.stem().string();
  x.model = r.string("model");
  x.hardware = r.string("hardware");
  x.engine = r.string("engine");
  x.min_engine_version = r.string("min_engine_version");
  x.precision = static_cast<Precision>(r.choice("precision", kPrecisionNames));
  x.kv_cache_dtype = static_cast<Precision>(r.choice("kv_cache_dtype", kPrecisionNames));
  if (x.kv_cache_dtype != Precision::kBf16 && x.kv_cache_dtype != Precision::kFp8) {
    r.fail("kv_cache_dtype", "KV cache must be bf16 or fp8");
  }
  auto small_positive = [&](std::string_view key, std::int64_t max) {
    auto v = r.integer(key, Bound::kPositive);
    if (v > max) r.fail(key, "must be at most " + std::to_string(max));
    return static_cast<int>(v);
  };
  x.tensor_parallel = small_positive("tensor_parallel", 1024);
  x.expert_parallel = small_positive("expert_parallel", 1024);
  // A recipe describes one replica; how many replicas run is the caller's (`--replicas`, the
  // game's rentals). Older files carry "data_parallel": 1, still accepted; any other value is not.
  if (r.has("data_parallel") && r.integer("data_parallel", Bound::kPositive) != 1) {
    r.fail("data_parallel",
           "a recipe describes one replica: data_parallel must be 1 (set replicas where the recipe is used)");
  }
  x.kv_page_tokens = small_positive("kv_page_tokens", 4096);
  x.max_num_batched_tokens = small_positive("max_num_batched_tokens", 1 << 22);
  x.max_num_seqs = small_positive("max_num_seqs", 1 << 16);
  x.prefix_caching = r.boolean("prefix_caching");
  x.cuda_graphs = r.boolean("cuda_graphs");
  if (auto s = r.optional_object("spec_decode")) {
    SpecDecode sd;
    sd.method = s->string("method");
    sd.num_draft_tokens = static_cast<int>(s->integer("num_draft_tokens", Bound::kPositive));
    sd.acceptance_length = s->number("acceptance_length", Bound::kPositive);
    if (sd.acceptance_length < 1.0) s->fail("acceptance_length", "must be at least 1 (the bonus token)");
    if (sd.acceptance_length > sd.num_draft_tokens + 1) {
      s->fail("acceptance_length", "cannot exceed num_draft_tokens + 1");
    }
    s->finish();
    x.spec_decode = sd;
  }
  x.verified = r.boolean("verified");
  x.source = r.string("source");
  if (auto n = r.optional_string("notes")) x.notes = *n;
  r.finish();
  return x;
}

}  // namespace tycoon::data
