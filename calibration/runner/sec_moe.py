"""Section: MoE grouped GEMM (gpt-oss-120b-like experts) over token counts, random routing."""

import torch

from common import bench, log, log_exc, randn, free_gpu
import models
import moe

TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]


def random_offs(tokens, num_experts, top_k):
    """Random distinct top-k experts per token -> (offs int32 on GPU, experts touched)."""
    idx = torch.rand((tokens, num_experts), device="cuda").topk(top_k, dim=-1).indices
    flat = idx.reshape(-1)
    sorted_e, _ = torch.sort(flat)
    experts = torch.arange(num_experts, device="cuda", dtype=sorted_e.dtype)
    offs = torch.searchsorted(sorted_e, experts, right=True, out_int32=True)
    touched = int(torch.unique(flat).numel())
    return offs, touched


def check_grouped(impl, w1, h):
    """Grouped result against the per-expert loop, on random data; returns relative error."""
    offs, _ = random_offs(64, w1.shape[0], 4)
    a = randn((int(offs[-1].item()), h))
    ref = moe.loop_grouped_mm(a, w1.transpose(1, 2), offs)
    got = moe.grouped_mm(a, w1.transpose(1, 2), offs, impl)
    return float((got.float() - ref.float()).norm() / ref.float().norm())


def run(writer, guard, smoke=False):
    m = models.GPT_OSS_120B
    e, k, h, d = m.num_experts, m.top_k, m.hidden, m.expert_dim
    impl = moe.grouped_impl_name()
    log(f"moe grouped impl: {impl}")
    w1 = randn((e, 2 * d, h), std=0.02)     # gate_up, (E, N, K)
    w2 = randn((e, h, d), std=0.02)         # down
    router = randn((e, h), std=0.02)
    bias = moe.balance_bias(max(TOKENS), e)
    if impl != "loop":
        try:
            err = check_grouped(impl, w1, h)
            log(f"moe grouped vs loop relative error: {err:.2e}")
            if not err < 2e-2:
                log("!! grouped GEMM disagrees with the loop; falling back to loop")
                impl = "loop"
        except Exception:
            log_exc("grouped GEMM check; falling back to loop")
            impl = "loop"
    tokens = [1, 256] if smoke else TOKENS
    results = {}
    for t in tokens:
        if not guard.ok():
            break
        offs, touched = random_offs(t, e, k)
        rows = t * k
        for op, w, n, kk in (("moe_gate_up", w1, 2 * d, h), ("moe_down", w2, h, d)):
            a = randn((rows, kk))
            wt = w.transpose(1, 2)
            try:
                tm = bench(lambda: moe.grouped_mm(a, wt, offs, impl), target_s=0.015,
                           min_reps=5, max_reps=40)
            except Exception:
                log_exc(f"{op} tokens={t}")
                continue
            flop = 2.0 * rows * n * kk
            nbytes = 2.0 * (touched * n * kk + rows * kk + rows * n)
            row = {"op": op, "impl": impl, "dtype": "bf16", "model": m.name,
                   "tokens": t, "top_k": k, "num_experts": e, "rows": rows,
                   "experts_touched": touched, "N": n, "K": kk, "routing": "uniform_random",
                   "flop": flop, "bytes": nbytes}
            row.update(tm)
            row["flop_per_s"] = flop / tm["median_s"]
            row["bytes_per_s"] = nbytes / tm["median_s"]
            writer.write(row)
            results[(op, t)] = row
        # the whole expert block: router, sort, gather, two grouped GEMMs, SwiGLU, weighted scatter
        x = randn((t, h))
        try:
            _tok, _w, offs_l = moe.route(x, router, k, bias)
            counts = torch.diff(offs_l, prepend=offs_l.new_zeros(1))
            touched_l = int((counts > 0).sum().item())
            tm = bench(lambda: moe.moe_forward(x, router, w1, w2, k, impl, bias), target_s=0.015,
                       min_reps=5, max_reps=40)
            flop = 2.0 * t * k * (2 * d * h + h * d) + 2.0 * t * e * h
            nbytes = 2.0 * (touched_l * 3 * d * h + e * h + 2 * t * h + t * k * (2 * h + 3 * d))
            row = {"op": "moe_layer", "impl": impl, "dtype": "bf16", "model": m.name,
                   "tokens": t, "top_k": k, "num_experts": e, "rows": t * k,
                   "experts_touched": touched_l, "N": None, "K": h,
                   "routing": "router_linear_topk_balanced_bias", "flop": flop, "bytes": nbytes}
            row.update(tm)
            writer.write(row)
        except Exception:
            log_exc(f"moe_layer tokens={t}")
    del w1, w2, router
    free_gpu()
    return impl, results
