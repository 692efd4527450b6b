"""Tables of prefill_moe_mla_notes.md from the rows in calibration/data/h200/ (no GPU needed).

usage: python3 calibration/data/h200/diagnostics/prefill_moe_mla_tables.py
Model columns re-implement, for comparison only, the perf model's expert and GEMM terms
(sim/perf/cost_builder.h: experts(), gemm(); engine efficiency 1) with the curves of
hardware_db/calibrated/h200.json.
"""

import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(DATA)))
PEAK = {"bf16": 989e12, "fp8_e4m3": 1979e12, "mxfp4_w4a16": 989e12}
BW = 4.8e12


def rows(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def curve(knots):
    """Piecewise linear in log2(size), flat beyond the knots (Curve in calibration_profile.h)."""
    pts = [(math.log2(s), v) for s, v in knots]

    def f(size):
        x = math.log2(max(size, 1e-30))
        if x <= pts[0][0]:
            return pts[0][1]
        if x >= pts[-1][0]:
            return pts[-1][1]
        for (x0, v0), (x1, v1) in zip(pts, pts[1:]):
            if x0 <= x <= x1:
                return v0 + (v1 - v0) * (x - x0) / (x1 - x0)
        return pts[-1][1]
    return f


with open(os.path.join(ROOT, "hardware_db", "calibrated", "h200.json"), encoding="utf-8") as f:
    CAL = json.load(f)
MOE_CE = curve(CAL["moe_compute_eff_bf16"])
MOE_ME = curve(CAL["moe_memory_eff"])
GEMM_CE = {"bf16": curve(CAL["gemm_compute_eff_bf16"]), "fp8_e4m3": curve(CAL["gemm_compute_eff_fp8"])}
ATTN_CE = curve(CAL["attn_prefill_compute_eff"])


def model_experts_s(pairs, touched, width, inter, wbytes, math_peak):
    """cost_builder.h experts(): both grouped GEMMs of a gated expert block, one op."""
    flop = 2 * pairs * width * inter * 3
    nbytes = touched * width * inter * 3 * wbytes + pairs * (width * 2 + inter * 3) * 2
    comp = flop / (math_peak * MOE_CE(pairs / touched))
    mem = nbytes / (BW * MOE_ME(nbytes))
    return max(comp, mem), comp, mem


def moe_table():
    r = rows("moe_fp8_grouped.jsonl") + rows("moe_mxfp4_grouped.jsonl")
    print("\n## MoE expert GEMMs (gate_up + down of one layer, uniform routing)\n")
    print("| model | impl | tokens | rows/expert | measured ms | TFLOP/s | frac of peak | TB/s | "
          "model ms (fp8 or bf16 math) | measured / model |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    impls = ["torch._scaled_grouped_mm", "triton_fp8_block", "torch._grouped_mm",
             "triton_mxfp4_w4a16_dq2", "triton_mxfp4_w4a16_split_swap"]
    for model in ("gpt-oss-120b", "deepseek-v3"):
        for impl in impls:
            for t in (1, 64, 1024, 2048, 4096, 8192, 16384):
                g = [x for x in r if x["op"] == "moe_expert_gemm" and x["model"] == model
                     and x["impl"] == impl and x["tokens"] == t]
                if len(g) != 2:
                    continue
                s = sum(x["median_s"] for x in g)
                flop = sum(x["flop"] for x in g)
                nb = sum(x["bytes"] for x in g)
                x0 = g[0]
                dt = x0["dtype"]
                wb = {"fp8_e4m3": 1.0, "bf16": 2.0, "mxfp4_w4a16": 0.5}[dt]
                mt, _c, _m = model_experts_s(x0["rows"], x0["experts_touched"], x0["hidden"],
                                             x0["expert_dim"], wb, PEAK[dt])
                print(f"| {model} | {impl} | {t} | {x0['rows_per_touched_expert']:.0f} | "
                      f"{s * 1e3:.3f} | {flop / s / 1e12:.0f} | {flop / s / PEAK[dt]:.2f} | "
                      f"{nb / s / 1e12:.2f} | {mt * 1e3:.3f} | {s / mt:.2f} |")


def moe_eff_table():
    r = rows("moe_fp8_grouped.jsonl")
    print("\n## Grouped-GEMM compute efficiency by rows per touched expert "
          "(gate_up and down pooled: sum flop / sum time / peak)\n")
    print("| rows/expert (tokens) | model moe_compute_eff | gpt-oss fp8 CUTLASS | DeepSeek fp8 CUTLASS"
          " | DeepSeek fp8 Triton block | DeepSeek bf16 _grouped_mm |")
    print("|---|---|---|---|---|---|")
    for t in (1024, 2048, 4096, 8192, 16384):
        cells = []
        for model, impl in (("gpt-oss-120b", "torch._scaled_grouped_mm"),
                            ("deepseek-v3", "torch._scaled_grouped_mm"),
                            ("deepseek-v3", "triton_fp8_block"),
                            ("deepseek-v3", "torch._grouped_mm")):
            g = [x for x in r if x["op"] == "moe_expert_gemm" and x["model"] == model
                 and x["impl"] == impl and x["tokens"] == t]
            s = sum(x["median_s"] for x in g)
            cells.append(f"{sum(x['flop'] for x in g) / s / PEAK[g[0]['dtype']]:.2f}")
        rpe = t * 4 / 128
        print(f"| {rpe:.0f} ({t}) | {MOE_CE(rpe):.2f} | " + " | ".join(cells) + " |")


def routing_table():
    r = rows("moe_routing.jsonl")
    print("\n## Routing, permutation, combine (torch ops, CUDA graph replay), microseconds\n")
    ops = ["moe_router_gemm", "moe_topk", "moe_permute", "moe_combine", "moe_combine_index_add"]
    print("| model | tokens | " + " | ".join(ops) + " | permute TB/s | combine TB/s |")
    print("|---|---|" + "---|" * (len(ops) + 2))
    for model in ("gpt-oss-120b", "deepseek-v3"):
        for t in (1, 64, 1024, 4096, 8192, 16384):
            g = {x["op"]: x for x in r if x["model"] == model and x["tokens"] == t}
            cells = [f"{g[o]['median_s'] * 1e6:.1f}" for o in ops]
            print(f"| {model} | {t} | " + " | ".join(cells) +
                  f" | {g['moe_permute']['bytes_per_s'] / 1e12:.2f} | "
                  f"{g['moe_combine']['bytes_per_s'] / 1e12:.2f} |")


def mla_table():
    r = rows("mla_prefill.jsonl")
    print("\n## MLA prefill, expanded (one layer), causal from an empty cache\n")
    print("| TP (heads) | S | kv_up ms | k_assemble ms | attn cuDNN ms (TFLOP/s) | attn FA2 v-padded "
          "ms (TFLOP/s) | attn efficient ms | whole ms | attn frac of bf16 peak (cuDNN) | "
          "model attn eff | model attn ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tp in (1, 8):
        for s in (1024, 2048, 4096, 8192, 16384, 32768):
            g = [x for x in r if x["tp"] == tp and x["seq_len"] == s]

            def one(op, be=None):
                for x in g:
                    if x["op"] == op and (be is None or x.get("backend") == be):
                        return x
                return None
            up, asm = one("mla_kv_up"), one("mla_k_assemble")
            cu, fl, ef = (one("mla_attn_prefill", b) for b in ("cudnn", "flash_vpad", "efficient"))
            wh = one("mla_prefill_expanded")
            model_s = cu["flop"] / (989e12 * ATTN_CE(s))
            print(f"| {tp} ({g[0]['num_heads']}) | {s} | {up['median_s'] * 1e3:.3f} | "
                  f"{asm['median_s'] * 1e3:.3f} | {cu['median_s'] * 1e3:.3f} "
                  f"({cu['flop_per_s'] / 1e12:.0f}) | {fl['median_s'] * 1e3:.3f} "
                  f"({fl['flop_per_s'] / 1e12:.0f}) | {ef['median_s'] * 1e3:.3f} | "
                  f"{wh['median_s'] * 1e3:.3f} | {cu['flop_per_s'] / 989e12:.2f} | "
                  f"{ATTN_CE(s):.2f} | {model_s * 1e3:.3f} |")


def gemm_table():
    r = rows("gemm_fp8_large_m.jsonl")
    print("\n## Llama-3.1-70B linears at large M: fraction of dense peak (fp8 1979, bf16 989)\n")
    print("| TP | layer | N x K | M | fp8 per-tensor | fp8 rowwise | bf16 | model fp8 eff | "
          "model bf16 eff |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tp in (1, 2, 4, 8):
        for layer in ("qkv", "o", "gate_up", "down"):
            for m in (2048, 4096, 8192, 16384):
                g = [x for x in r if x["tp"] == tp and x["layer"] == layer and x["M"] == m]
                if not g:
                    continue

                def fr(dt, sc):
                    for x in g:
                        if x["dtype"] == dt and x["scaling"] == sc:
                            return f"{x['flop_per_s'] / PEAK[dt]:.2f}"
                    return "-"
                print(f"| {tp} | {layer} | {g[0]['N']} x {g[0]['K']} | {m} | "
                      f"{fr('fp8_e4m3', 'per_tensor')} | {fr('fp8_e4m3', 'rowwise_token_channel')}"
                      f" | {fr('bf16', 'none')} | {GEMM_CE['fp8_e4m3'](m):.2f} | "
                      f"{GEMM_CE['bf16'](m):.2f} |")


def gemm_summary():
    r = rows("gemm_fp8_large_m.jsonl")
    print("\n## Llama-3.1-70B: one layer's four linears together, time-weighted fraction of peak\n")
    print("| TP | M | fp8 per-tensor | fp8 rowwise | bf16 | fp8 speed-up over bf16 |")
    print("|---|---|---|---|---|---|")
    for tp in (1, 2, 4, 8):
        for m in (2048, 4096, 8192, 16384):
            out = []
            tt = {}
            for dt, sc in (("fp8_e4m3", "per_tensor"), ("fp8_e4m3", "rowwise_token_channel"),
                           ("bf16", "none")):
                g = [x for x in r if x["tp"] == tp and x["M"] == m and x["dtype"] == dt
                     and x["scaling"] == sc]
                s = sum(x["median_s"] for x in g)
                tt[sc] = s
                out.append(f"{sum(x['flop'] for x in g) / s / PEAK[dt]:.2f}")
            print(f"| {tp} | {m} | " + " | ".join(out) +
                  f" | {tt['none'] / tt['per_tensor']:.2f} |")


if __name__ == "__main__":
    moe_eff_table()
    moe_table()
    routing_table()
    mla_table()
    gemm_summary()
    gemm_table()
