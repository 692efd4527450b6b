#!/usr/bin/env python3
"""Writes hardware_db/engine_kernels/moe.json: for each GPU, engine and expert format, the engine's
own MoE kernel as NVIDIA aiconfigurator published it (calibration/published/moe_kernels.json), which
the simulator prices routed experts with on chips it has not measured itself (docs/calibration.md,
"The engines' own MoE kernels").

    calibration/published/engine_kernels.py > hardware_db/engine_kernels/moe.json

One series per (GPU, engine, expert weights, expert math):
  * the expert format of a series is its weights and the precision they are multiplied in
    (w4a16_mxfp4: fp4 weights, bf16 math; w4a8_mxfp4_mxfp8: fp4, fp8; nvfp4: fp4, fp4;
    fp8_block: fp8, fp8); a deployment uses the series of the format its engine card resolves
    (Deployment::expert_math_precision);
  * the engine's default kernel for that format on that chip where a published version runs a
    different one (PREFER), then the newest published version: an engine's kernels for a chip
    improve release by release (vLLM's FP8 MoE on the B200 is 2-4x faster at prefill sizes in
    0.24.0, FlashInfer's, than in 0.19.0, Triton's), and the game's and the published points'
    engines are recent;
  * the split the published serving points of that model run (GPT-OSS-120B on one GPU; DeepSeek-R1
    at TP 8, experts split by tensor parallelism);
  * where the version has several kernels for the format (TensorRT-LLM's NVFP4 CUTLASS and
    min-latency paths), the faster at each token count, as the engine's backend selection does.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORMAT = {"w4a16_mxfp4": ("fp4", "bf16"), "w4a8_mxfp4_mxfp8": ("fp4", "fp8"), "nvfp4": ("fp4", "fp4"),
          "fp8_block": ("fp8", "fp8")}
SPLIT = {"gpt-oss-120b": (1, 1), "deepseek-r1": (8, 1)}
# (GPU, engine, format) -> a part of the kernel_source of the kernel the engine serves with by
# default, where aiconfigurator's collector of some version timed another. vLLM on SM100 serves
# MXFP4 experts with FlashInfer's TRT-LLM-gen MXFP4 x BF16 MoE (vllm/model_executor/layers/
# quantization/mxfp4.py, get_mxfp4_backend: 'Using FlashInfer MXFP4 BF16 backend for SM100';
# hardware_db/engines/vllm.json); the 0.19.0 table's vllm_mxfp4_moe is 3.5x slower at 32-256
# tokens than that kernel, slower than the published vLLM B200 serving TPOTs allow (1.36 ms a
# layer at 256 tokens against 3.49 ms for a whole decode step at 4 users: calibration/published/
# b200_serving.json).
PREFER = {("b200", "vllm", "w4a16_mxfp4"): "flashinfer_trtllm"}
# (GPU, engine, format) with no table of its own -> (engine, part of kernel_source) whose table
# times the same kernel. vLLM's MXFP4 MoE with VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 on SM100
# quantizes the activations to MXFP8 and calls FlashInfer's TRT-LLM-gen block-scale MoE
# (vllm/model_executor/layers/quantization/mxfp4.py, the SM100_FI_MXFP4_MXFP8_TRTLLM backend), the
# kernel SGLang's flashinfer_trtllm MoE runs for MXFP4 x MXFP8; InferenceX serves GPT-OSS on the
# B200 under vLLM that way (SemiAnalysisAI/InferenceX benchmarks/single_node/fixed_seq_len/
# deprecated/gptoss_fp4_b200.sh: export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1).
# (GPU, engine, format) whose only published kernel is not the one the engine serves with: no
# entry, the chip's own curves apply. TensorRT-LLM's FP8 block-scale MoE on the B200 is timed only
# as DeepGEMM, while TensorRT-LLM serves DeepSeek-R1 FP8 there with its TRT-LLM-gen MoE backend
# (SemiAnalysisAI/InferenceX benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200_trt.sh:
# moe_config backend TRTLLM).
# SGLang's GPT-OSS experts on the H100 are timed only as its own Triton fused MoE (2.9 ms a
# layer at 256 tokens), too slow for SGLang's published H100 GPT-OSS throughput: 1,620 output
# tok/s at batch 64 (calibration/published/spec_decode_serving.json) is a 39.5 ms step, less
# than 36 layers of that kernel at 64 tokens (80 ms): the served kernel is not the one timed.
# The B300's TensorRT-LLM FP8 block-scale MoE is likewise timed only as DeepGEMM (1.3.0rc20), which
# the B200's reasoning above says is not the backend TensorRT-LLM serves DeepSeek-R1 FP8 with on
# Blackwell (InferenceX has no B300 TensorRT-LLM DeepSeek-R1 FP8 script to say otherwise).
EXCLUDE = {("b200", "trtllm", "fp8_block"), ("b300", "trtllm", "fp8_block"), ("h100", "sglang", "w4a16_mxfp4")}
BORROW = {("b200", "vllm", "w4a8_mxfp4_mxfp8"): ("sglang", "flashinfer_trtllm"),
          ("b300", "vllm", "w4a8_mxfp4_mxfp8"): ("sglang", "flashinfer_trtllm")}  # the same path on SM100


def version_key(v):
    """Release order: 1.3.0rc10 < 1.3.0rc20 < 1.3.0 < 1.3.0.post1 < 1.3.1."""
    main, _, rest = v.partition("rc")
    numbers = [int(p) if p.isdigit() else 0 for p in main.replace(".post", ".").split(".") if p]
    post = int(main.split(".post")[1]) if ".post" in main else 0
    # a release candidate sorts before its release: (0, rc) < (1, 0)
    rc = (0, int("".join(c for c in rest.split(".")[0] if c.isdigit()) or 0)) if _ else (1, 0)
    return (numbers[:3] + [0] * (3 - len(numbers[:3])), rc, post)


def main():
    doc = json.loads((ROOT / "calibration" / "published" / "moe_kernels.json").read_text())
    groups = {}
    for s in doc["series"]:
        # Series of other shapes (MiniMax-M2.5's) are checks of the derived curves, not priced with.
        if s["model"] not in SPLIT or (s["moe_tp"], s["moe_ep"]) != SPLIT[s["model"]] or \
                (s["gpu"], s["engine"], s["moe_dtype"]) in EXCLUDE:
            continue
        weights, math = FORMAT[s["moe_dtype"]]
        groups.setdefault((s["gpu"], s["engine"], weights, math), []).append(s)
    lent = {}
    for (gpu, engine, dtype), (lender, kernel) in BORROW.items():
        key = (gpu, engine) + FORMAT[dtype]
        if key in groups:
            continue
        series = [s for s in groups.get((gpu, lender) + FORMAT[dtype], []) if kernel in s["kernel_source"]]
        if series:
            groups[key] = series
            lent[key] = lender
    kernels = []
    for (gpu, engine, weights, math), members in sorted(groups.items()):
        prefer = PREFER.get((gpu, engine, members[0]["moe_dtype"]))
        if prefer and any(prefer in s["kernel_source"] for s in members):
            members = [s for s in members if prefer in s["kernel_source"]]
        versions = sorted({s["engine_version"] for s in members}, key=version_key)
        version = versions[-1]
        chosen = [s for s in members if s["engine_version"] == version]
        # One model's experts and one token distribution per entry (the per-size minimum below is
        # over kernels, not over shapes).
        chosen = [s for s in chosen if (s["model"], s["distribution"]) == (chosen[0]["model"], chosen[0]["distribution"])]
        best = {}
        for s in chosen:
            for n, ms in s["tokens_ms"]:
                if n not in best or ms < best[n][0]:
                    best[n] = (ms, s["kernel_source"])
        s0 = chosen[0]
        kernels.append({
            "hardware": gpu, "engine": engine, "weights": weights, "math": math, "model": s0["model"],
            "tp": s0["moe_tp"] * s0["moe_ep"], "ep": s0["moe_ep"],
            "tokens_ms": [[n, best[n][0]] for n in sorted(best)],
            "source": ((f"the kernel {engine} runs for this format, timed under {lent[(gpu, engine, weights, math)]}: "
                        if (gpu, engine, weights, math) in lent else "")
                       + f"NVIDIA aiconfigurator, {s0['engine']} {version} on {gpu}: {s0['moe_dtype']} MoE kernel "
                       f"({', '.join(sorted({s['kernel_source'] for s in chosen}))}), {s0['model']} experts, "
                       f"TP {s0['moe_tp']} x EP {s0['moe_ep']}, {s0['distribution']} tokens; "
                       + "; ".join(sorted({s['table'] for s in chosen}))
                       + f" at {doc['source'].split('/tree/')[1].split('/')[0]} (calibration/published/moe_kernels.json)"),
        })
    out = {
        "about": ("The engines' own routed-expert (MoE) kernels on the chips this project has not measured itself: "
                  "one MoE layer's latency (the grouped GEMMs, the activation and the combine in one fused call; "
                  "the router's GEMM and top-k stay priced apart) for a published model's experts at each token count. The simulator turns each series into the "
                  "engine's expert efficiency curves on that chip (sim/perf/engine_kernels.cpp). Written by "
                  "calibration/published/engine_kernels.py from calibration/published/moe_kernels.json; "
                  "docs/calibration.md, \"The engines' own MoE kernels\"."),
        "kernels": kernels,
    }
    lines = ["  " + json.dumps(k, separators=(", ", ": ")) for k in kernels]
    head = json.dumps({"about": out["about"]}, indent=1)[:-2]
    sys.stdout.write(head + ',\n "kernels": [\n' + ",\n".join(lines) + "\n ]\n}\n")


if __name__ == "__main__":
    main()
