// A model card: the architecture facts the performance model needs, plus market token prices.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/types.h"

namespace tycoon::data {

enum class MixerKind { kAttention, kMla, kLinearAttention, kMamba2 };
inline constexpr std::array<std::string_view, 4> kMixerKindNames = {"attention", "mla", "linear_attention", "mamba2"};

// The token-mixing block of a layer. Fields not used by `kind` stay zero.
struct Mixer {
  MixerKind kind = MixerKind::kAttention;
  // attention / mla
  int num_q_heads = 0;
  int num_kv_heads = 0;                    // attention only
  int head_dim = 0;                        // attention: q/k head dim; linear_attention: q/k head dim; mamba2: head dim
  int v_head_dim = 0;                      // defaults to head_dim for attention
  std::int64_t sliding_window_tokens = 0;  // 0: full attention
  std::int64_t chunk_tokens = 0;           // chunked local attention (Llama 4)
  std::int64_t sparse_top_k_tokens = 0;    // DSA-style top-k token selection
  double kv_compression_ratio = 1.0;       // stored KV tokens = context / ratio
  bool kv_shared = false;                  // K and V are one stored tensor (K = V)
  bool qk_norm = false;                    // RMSNorm over each head of q and k (QK-norm)
  // mla
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int indexer_num_heads = 0;
  int indexer_head_dim = 0;
  // linear attention (Gated DeltaNet, Kimi Delta Attention)
  int num_qk_heads = 0;
  int num_v_heads = 0;
  int conv_kernel = 0;
  // mamba2
  int num_heads = 0;
  int state_size = 0;
  int num_groups = 0;
};

enum class FfnKind { kDense, kMoe };
inline constexpr std::array<std::string_view, 2> kFfnKindNames = {"dense", "moe"};

struct Ffn {
  FfnKind kind = FfnKind::kDense;
  bool gated = true;                   // SwiGLU/GeGLU: gate and up projections
  std::int64_t intermediate_size = 0;  // dense
  int num_experts = 0;
  int top_k = 0;
  std::int64_t expert_intermediate_size = 0;
  int num_shared_experts = 0;
  std::int64_t shared_intermediate_size = 0;  // defaults to expert_intermediate_size
  std::int64_t latent_size = 0;               // latent MoE: experts act in this width
};

struct LayerGroup {
  int count = 1;
  std::optional<Mixer> mixer;
  std::optional<Ffn> ffn;
};

struct MarketPrice {
  double input_usd_per_mtok = 0;
  double cached_input_usd_per_mtok = 0;
  double output_usd_per_mtok = 0;
  std::string date;
  std::string source;
};

struct ModelCard {
  std::string id;
  std::string name;
  std::string family;
  double total_params = 0;
  double active_params = 0;
  std::int64_t hidden_size = 0;
  std::int64_t vocab_size = 0;
  std::int64_t max_context_tokens = 0;
  // A request of `tokens` (its prompt and the output it may reach) is past the context window:
  // the one rule for a simulated request, a benchmark's or sweep's lengths and predict's.
  bool beyond_context_window(std::int64_t tokens) const { return tokens > max_context_tokens; }
  bool tied_embeddings = false;
  Precision native_precision = Precision::kBf16;
  std::optional<Precision> expert_precision;
  std::vector<LayerGroup> layer_groups;
  // MoE routing along one sequence: the share of a token's routed experts that the sequence's
  // earlier positions of the same step did not already use. Speculative decoding verifies
  // 1 + k positions of one sequence together; they touch top_k x (1 + k x this) distinct experts
  // rather than independent draws. 1: independent draws (no published figure for the model).
  double sequence_new_expert_fraction = 1.0;
  // The multi-token-prediction modules the checkpoint ships (DeepSeek-V3's MTP layer): what
  // speculative decoding's `mtp` method drafts with. 0: none, so only a separate drafter (EAGLE).
  int mtp_modules = 0;
  MarketPrice market_price;
  std::vector<std::string> unverified;
  std::map<std::string, std::string> sources;
  std::string notes;
  std::string file;

  int num_layers() const;
  bool is_moe() const;
};

ModelCard load_model_card(const std::filesystem::path& path);
// `expect_id_from_file`: the id must equal the file stem (catalog files); a --model-file need not.
ModelCard load_model_card(const std::filesystem::path& path, bool expect_id_from_file);

inline std::string_view to_string(MixerKind k) { return name_of(k, kMixerKindNames); }
inline std::string_view to_string(FfnKind k) { return name_of(k, kFfnKindNames); }

}  // namespace tycoon::data
