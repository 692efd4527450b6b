// An inference engine (vLLM, SGLang, ...) and what it costs per step beyond the GPU kernels.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/types.h"

namespace tycoon::data {

// When a waiting request may start. Optimistic (vLLM): when its prompt fits now; running
// requests that later run out of KV blocks are preempted. Guaranteed-no-evict (TensorRT-LLM's
// default capacity policy): only when its prompt and its whole output fit, so nothing is ever
// preempted. An engine card names its default; the serving scheduler runs it.
enum class KvAdmission { kOptimistic, kGuaranteedNoEvict };
inline constexpr std::array<std::string_view, 2> kKvAdmissionNames = {"optimistic", "guaranteed-no-evict"};
// What an engine's KV-cache memory fraction bounds (Engine::kv_memory_basis): everything of the
// total (weights, activations, KV), the KV cache out of what is free once the model is loaded, or
// the static allocations (weights and the KV pool; activations outside it).
enum class KvMemoryBasis { kTotal, kFree, kStatic };
inline constexpr std::array<std::string_view, 3> kKvMemoryBasisNames = {"total", "free", "static"};

// SGLang's running-request limit when --max-running-requests is unset: half the KV pool's tokens,
// and at most its request-slot pool, sized from the pool over the context window times 512,
// clamped to [2048, 4096] (sgl-project/sglang ModelRunner.init_memory_pool, max_num_reqs, and the
// Scheduler's max_running_requests = min(max_total_num_tokens // 2, req_to_token_pool.size)).
int kv_pool_running_limit(std::int64_t kv_pool_tokens, std::int64_t context_tokens);

// An alternative W4A16 expert kernel of an engine (Engine::w4a16_moe_kernels).
struct W4a16MoeKernel {
  std::vector<Vendor> vendors;  // the chips' vendors it runs on
  double compute_share = 1;     // of the chip's grouped-GEMM compute efficiency
  double memory_share = 1;      // of its expert weight-streaming efficiency (capped at the bandwidth)
};

struct Engine {
  std::string id;
  std::string name;
  std::string version;
  std::vector<Vendor> vendors;
  bool supports_cuda_graphs = false;
  bool supports_prefix_caching = false;
  bool supports_chunked_prefill = false;
  bool supports_spec_decode = false;
  // The scheduler can hold prompts back to batch them (serving::SchedulerConfig::batch_wait_iters;
  // TensorRT-LLM's batch_wait_timeout_iters and batch_wait_max_tokens_ratio). Off unless set.
  bool supports_batch_waiting = false;
  // The scheduler can take new requests in only every N decode steps (serving::SchedulerConfig::
  // recv_interval; SGLang's --scheduler-recv-interval). Off unless set.
  bool supports_recv_interval = false;
  // The scheduler can run one step ahead of the GPU (serving::SchedulerConfig::async_scheduling;
  // vLLM's --async-scheduling, SGLang's and TensorRT-LLM's overlap schedulers). Off unless set.
  bool supports_async_scheduling = false;
  // ... and keeps doing so with speculative decoding (SGLang turns its overlap scheduler off for
  // EAGLE-style drafting). True unless set.
  bool async_scheduling_with_spec_decode = true;
  KvAdmission kv_admission = KvAdmission::kOptimistic;  // the engine's default admission policy
  // A serving engine a business deploys (vLLM, SGLang, ...); false for the calibration runner's
  // reference engine, which the game, the advisor and the deploy form do not offer.
  bool serves_production = true;
  // The engine's KV-cache budget, kv_memory_fraction of: the whole memory for weights,
  // activations and KV cache together (vLLM --gpu-memory-utilization), the memory left free once
  // weights and activations are in (TensorRT-LLM free_gpu_memory_fraction), or the whole memory for
  // the weights and the KV pool, activations outside (SGLang --mem-fraction-static).
  double kv_memory_fraction = 0.9;
  KvMemoryBasis kv_memory_basis = KvMemoryBasis::kTotal;
  // Where the engine's own limit on running requests comes from when no setting gives one: false,
  // a setting (vLLM --max-num-seqs, the recipe's); true, the size of its KV pool (SGLang, when
  // --max-running-requests is unset: kv_pool_running_limit).
  bool running_limit_from_kv_pool = false;
  // The running-request limit the engine sets itself when speculative decoding is on and no
  // setting gives one (SGLang resets --max-running-requests to 48 for EAGLE); 0 = none.
  int spec_decode_running_limit = 0;
  double iteration_overhead_s = 0;     // CPU time per engine step
  double per_sequence_overhead_s = 0;  // CPU time per running sequence per step
  // What a request pays in the engine's front end (API server) before the scheduler sees it,
  // outside the GPU step. frontend_request_s: fixed CPU latency per request (HTTP parsing,
  // request object and sampling parameters, hand-off to the engine core), concurrent across
  // requests (asyncio). tokenize_s_per_input_token: tokenization of the prompt on one CPU lane
  // shared by all requests of a replica group (one API-server process), first come first served,
  // overlapping the GPU steps (a separate process from the scheduler). 0 = not charged.
  double frontend_request_s = 0;
  double tokenize_s_per_input_token = 0;
  // GPU kernels one transformer layer launches (dense FFN / MoE layer) on one GPU, without QK-norm
  // (those layers launch 2 more) and without tensor-parallel collectives; 0 = only the modelled
  // ops. Measured for torch-reference (torch.profiler), estimated for production engines.
  double kernels_per_dense_layer = 0;
  double kernels_per_moe_layer = 0;
  bool fused_rotary = true;  // false: rotary as separate strided elementwise kernels (torch-reference)
  // false: the gated activation silu(gate) * up runs as separate kernels over strided halves
  // (torch-reference); true: one fused kernel (vLLM's silu_and_mul and its peers).
  bool fused_activation = true;
  // false: MoE dispatch and combine run as separate top-k / sort / gather / scatter-add kernels
  // (torch-reference, ~20 small kernels per layer); true: fused into the expert kernels'
  // prologue and epilogue (vLLM's fused_moe and its peers).
  bool fused_moe_routing = true;
  // true: eager steps are issued op by op from Python (PyTorch eager: torch-reference), each
  // kernel costing the host the calibrated python_op_launch time; false: the engine launches its
  // own kernels (the minimal eager_launch time) and captures what it can in graphs.
  bool python_eager_ops = false;
  // false: QK-norm runs as PyTorch's RMSNorm over strided head views (torch-reference: measured
  // curve, one kernel per tensor); true: a fused norm kernel per tensor at elementwise speed.
  bool fused_qk_norm = true;
  // false: the KV-cache write is two strided copies (K, V) at the measured kv_write curve;
  // true: one cache-write kernel at elementwise speed (vLLM's reshape_and_cache_flash).
  bool fused_kv_write = true;
  std::map<Vendor, double> kernel_efficiency;  // in (0, 1], relative to the calibrated reference
  // Grouped expert GEMMs with 4-bit weights on a chip without 4-bit math (Hopper, CDNA3) run
  // through a kernel that dequantises the weights and multiplies in bf16 (W4A16). The engine's
  // default one is priced by its published timings where the chip's profile holds them (the
  // H100), else by the chip's grouped-GEMM curves (vLLM's Triton kernel on the H200 agrees with
  // them: docs/calibration.md, "The engines' own MoE kernels"). Other W4A16 kernels the engine can be
  // told to run (vLLM's Marlin, VLLM_MXFP4_USE_MARLIN=1 / --mxfp4-backend marlin), by name: the
  // share of the curves' compute efficiency (large batches) and of their weight-streaming
  // efficiency (small batches) that kernel reaches. Fitted to published serving measurements
  // made with the kernel (calibration/fit/fit_engine_w4a16.py; the source names the rows and the
  // held-out error): none of these kernels could be run here.
  std::map<std::string, W4a16MoeKernel> w4a16_moe_kernels;
  // A checkpoint that ships its routed experts in 4 bits (MXFP4: GPT-OSS, Kimi K3) served in 4
  // bits on a chip with 4-bit math: the precision the engine's MoE kernel keeps the activations
  // in, per vendor, which sets the math of the expert GEMMs. vLLM's default MXFP4 backend on
  // Blackwell multiplies MXFP4 weights with bf16 activations; fp4 (W4A4) where not given.
  // Checkpoints quantised to 4 bits after training (NVFP4) run the chip's 4-bit math.
  std::map<Vendor, Precision> native_fp4_expert_activation;
  std::map<std::string, std::string> sources;
  std::string notes;
  std::string file;

  bool runs_on(Vendor v) const;
  // 1.0 when the file gives no factor for the vendor.
  double efficiency_on(Vendor v) const;
  // The named W4A16 kernel, or null when the engine has none of that name.
  const W4a16MoeKernel* w4a16_moe_kernel(std::string_view kernel) const;
  // Precision::kFp4 when the file gives none for the vendor.
  Precision native_fp4_expert_activation_on(Vendor v) const;
};

Engine load_engine(const std::filesystem::path& path);

}  // namespace tycoon::data
