#include "sim/data/model_card.h"

#include "sim/data/json_reader.h"
#include "sim/data/source_check.h"

namespace tycoon::data {

namespace {

int positive_int(ObjectReader& r, std::string_view key) {
  auto v = r.integer(key, Bound::kPositive);
  if (v > 1'000'000'000) r.fail(key, "implausibly large");
  return static_cast<int>(v);
}

int optional_nonneg_int(ObjectReader& r, std::string_view key) {
  auto v = r.optional_integer(key, Bound::kNonNegative);
  if (v && *v > 1'000'000'000) r.fail(key, "implausibly large");
  return v ? static_cast<int>(*v) : 0;
}

Mixer read_mixer(ObjectReader r) {
  Mixer m;
  m.kind = static_cast<MixerKind>(r.choice("kind", kMixerKindNames));
  switch (m.kind) {
    case MixerKind::kAttention:
      m.num_q_heads = positive_int(r, "num_q_heads");
      m.num_kv_heads = positive_int(r, "num_kv_heads");
      if (m.num_q_heads % m.num_kv_heads != 0) r.fail("num_kv_heads", "must divide num_q_heads");
      m.head_dim = positive_int(r, "head_dim");
      m.v_head_dim = optional_nonneg_int(r, "v_head_dim");
      if (m.v_head_dim == 0) m.v_head_dim = m.head_dim;
      m.sliding_window_tokens = r.optional_integer("sliding_window_tokens", Bound::kPositive).value_or(0);
      m.chunk_tokens = r.optional_integer("chunk_tokens", Bound::kPositive).value_or(0);
      m.sparse_top_k_tokens = r.optional_integer("sparse_top_k_tokens", Bound::kPositive).value_or(0);
      m.kv_compression_ratio = r.optional_number("kv_compression_ratio", Bound::kPositive).value_or(1.0);
      if (m.kv_compression_ratio < 1.0) r.fail("kv_compression_ratio", "must be at least 1");
      m.kv_shared = r.optional_boolean("kv_shared").value_or(false);
      if (m.kv_shared && m.v_head_dim != m.head_dim)
        r.fail("kv_shared", "keys and values of different sizes cannot be shared");
      m.qk_norm = r.optional_boolean("qk_norm").value_or(false);
      break;
    case MixerKind::kMla:
      m.num_q_heads = positive_int(r, "num_q_heads");
      m.q_lora_rank = optional_nonneg_int(r, "q_lora_rank");
      m.kv_lora_rank = positive_int(r, "kv_lora_rank");
      m.qk_nope_head_dim = positive_int(r, "qk_nope_head_dim");
      m.qk_rope_head_dim = positive_int(r, "qk_rope_head_dim");
      m.v_head_dim = positive_int(r, "v_head_dim");
      m.sparse_top_k_tokens = r.optional_integer("sparse_top_k_tokens", Bound::kPositive).value_or(0);
      m.indexer_num_heads = optional_nonneg_int(r, "indexer_num_heads");
      m.indexer_head_dim = optional_nonneg_int(r, "indexer_head_dim");
      break;
    case MixerKind::kLinearAttention:
      m.num_qk_heads = positive_int(r, "num_qk_heads");
      m.num_v_heads = positive_int(r, "num_v_heads");
      m.head_dim = positive_int(r, "head_dim");
      m.v_head_dim = positive_int(r, "v_head_dim");
      m.conv_kernel = positive_int(r, "conv_kernel");
      break;
    case MixerKind::kMamba2:
      m.num_heads = positive_int(r, "num_heads");
      m.head_dim = positive_int(r, "head_dim");
      m.state_size = positive_int(r, "state_size");
      m.num_groups = positive_int(r, "num_groups");
      m.conv_kernel = positive_int(r, "conv_kernel");
      break;
  }
  r.finish();
  return m;
}

Ffn read_ffn(ObjectReader r) {
  Ffn f;
  f.kind = static_cast<FfnKind>(r.choice("kind", kFfnKindNames));
  f.gated = r.boolean("gated");
  switch (f.kind) {
    case FfnKind::kDense:
      f.intermediate_size = r.integer("intermediate_size", Bound::kPositive);
      break;
    case FfnKind::kMoe:
      f.num_experts = positive_int(r, "num_experts");
      f.top_k = positive_int(r, "top_k");
      if (f.top_k > f.num_experts) r.fail("top_k", "must not exceed num_experts");
      f.expert_intermediate_size = r.integer("expert_intermediate_size", Bound::kPositive);
      f.num_shared_experts = static_cast<int>(r.integer("num_shared_experts", Bound::kNonNegative));
      f.shared_intermediate_size =
          r.optional_integer("shared_intermediate_size", Bound::kPositive).value_or(f.expert_intermediate_size);
      f.latent_size = r.optional_integer("latent_size", Bound::kPositive).value_or(0);
      break;
  }
  r.finish();
  return f;
}

}  // namespace

int ModelCard::num_layers() const {
  int n = 0;
  for (const auto& g : layer_groups) n += g.count;
  return n;
}

bool ModelCard::is_moe() const {
  for (const auto& g : layer_groups) {
    if (g.ffn && g.ffn->kind == FfnKind::kMoe) return true;
  }
  return false;
}

ModelCard load_model_card(const std::filesystem::path& path) { return load_model_card(path, true); }

ModelCard load_model_card(const std::filesystem::path& path, bool expect_id_from_file) {
  auto json = parse_json_file(path);
  ObjectReader r(json, path.string(), "");
  ModelCard m;
  m.file = path.string();
  m.id = r.string("id");
  if (m.id.empty()) r.fail("id", "must not be empty");
  if (expect_id_from_file && m.id != path.stem().string()) {
    r.fail("id", "'" + m.id + "' does not match the file name");
  }
  m.name = r.string("name");
  m.family = r.string("family");
  m.total_params = r.number("total_params", Bound::kPositive);
  m.active_params = r.number("active_params", Bound::kPositive);
  if (m.active_params > m.total_params * 1.0001) r.fail("active_params", "exceeds total_params");
  m.hidden_size = r.integer("hidden_size", Bound::kPositive);
  m.vocab_size = r.integer("vocab_size", Bound::kPositive);
  m.max_context_tokens = r.integer("max_context_tokens", Bound::kPositive);
  m.tied_embeddings = r.boolean("tied_embeddings");
  m.native_precision = static_cast<Precision>(r.choice("native_precision", kPrecisionNames));
  if (r.has("expert_precision")) {
    m.expert_precision = static_cast<Precision>(r.choice("expert_precision", kPrecisionNames));
  } else {
    r.optional_string("expert_precision");  // marks an explicit null as read
  }
  auto groups = r.array("layer_groups");
  if (groups.size() == 0) groups.fail_here("at least one layer group is required");
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto g = groups.object(i);
    LayerGroup lg;
    lg.count = static_cast<int>(g.integer("count", Bound::kPositive));
    if (auto mx = g.optional_object("mixer")) lg.mixer = read_mixer(*mx);
    if (auto f = g.optional_object("ffn")) lg.ffn = read_ffn(*f);
    if (!lg.mixer && !lg.ffn) g.fail_here("a layer needs a mixer, an ffn, or both");
    g.finish();
    m.layer_groups.push_back(lg);
  }
  if (m.num_layers() > 100000) r.fail("layer_groups", "implausibly many layers");
  if (auto f = r.optional_number("sequence_new_expert_fraction", Bound::kUnit)) {
    if (!m.is_moe()) r.fail("sequence_new_expert_fraction", "only a mixture-of-experts model routes to experts");
    m.sequence_new_expert_fraction = *f;
  }
  if (auto n = r.optional_integer("mtp_modules", Bound::kNonNegative)) {
    if (*n > 16) r.fail("mtp_modules", "implausibly many multi-token-prediction modules (at most 16)");
    m.mtp_modules = static_cast<int>(*n);
  }
  {
    auto p = r.object("market_price");
    m.market_price.input_usd_per_mtok = p.number("input_usd_per_mtok", Bound::kNonNegative);
    m.market_price.cached_input_usd_per_mtok = p.number("cached_input_usd_per_mtok", Bound::kNonNegative);
    m.market_price.output_usd_per_mtok = p.number("output_usd_per_mtok", Bound::kNonNegative);
    m.market_price.date = p.string("date");
    m.market_price.source = p.string("source");
    p.finish();
  }
  m.unverified = r.string_array("unverified");
  m.sources = read_sources(
      r, {"total_params", "active_params", "layer_groups", "hidden_size", "vocab_size", "max_context_tokens"});
  for (const char* key : {"sequence_new_expert_fraction", "mtp_modules"}) {
    if (r.has(key) && !m.sources.contains(key)) r.fail("sources", std::string("no source given for '") + key + "'");
  }
  check_unverified_keys(r, m.unverified);
  if (auto n = r.optional_string("notes")) m.notes = *n;
  r.finish();
  return m;
}

}  // namespace tycoon::data
