"""MoE expert computation shared by the grouped-GEMM section and the reference engine.

Layout: expert weights are stored (E, N, K) contiguous, like nn.Linear weights stacked, and passed
to the grouped GEMM as the transposed view (E, K, N). Token->expert pairs are sorted by expert, so
the grouped GEMM sees one contiguous row block per expert; `offs` holds the cumulative row ends
(int32, one per expert, empty experts repeat the previous end). Everything below stays on the GPU
with no host synchronisation when the grouped implementation is available, so it can be captured
in a CUDA graph.
"""

import torch
import torch.nn.functional as F


def grouped_impl_name():
    if hasattr(torch, "_grouped_mm"):
        return "torch._grouped_mm"
    if hasattr(F, "grouped_mm"):
        return "F.grouped_mm"
    return "loop"


def grouped_mm(a, w_t, offs, impl):
    """a (R, K) rows sorted by expert, w_t (E, K, N), offs int32 (E,) -> (R, N)."""
    if impl == "torch._grouped_mm":
        return torch._grouped_mm(a, w_t, offs=offs)
    if impl == "F.grouped_mm":
        return F.grouped_mm(a, w_t, offs=offs)
    return loop_grouped_mm(a, w_t, offs)


def loop_grouped_mm(a, w_t, offs):
    """Fallback: one matmul per touched expert (synchronises to read offs)."""
    ends = offs.tolist()
    out = torch.empty((a.shape[0], w_t.shape[2]), dtype=a.dtype, device=a.device)
    start = 0
    for e, end in enumerate(ends):
        if end > start:
            torch.matmul(a[start:end], w_t[e], out=out[start:end])
        start = end
    return out


# A trained router spreads tokens over the experts (load-balancing loss); a random-weight router
# does not: on the reference engine's hidden states it sent a 128-token prefill to about half of
# gpt-oss's 128 experts. A fixed random bias per token position, far larger than the logits,
# makes the top-k choice uniform over the experts (as in the grouped-GEMM rows) while the router
# GEMM, top-k, softmax and sort still run. Only the load balance changes, not the work per pair.
BALANCE_BIAS_STD = 100.0


def balance_bias(max_tokens, num_experts, device="cuda"):
    g = torch.Generator(device=device)
    g.manual_seed(1234)
    return (torch.randn((max_tokens, num_experts), device=device, generator=g)
            * BALANCE_BIAS_STD).to(torch.bfloat16)


def route(x, router_w, top_k, bias=None):
    """Top-k routing; returns (token index per sorted row, weight per sorted row, offs).

    bias: None (the router alone), or (>= T, E) added to the logits (see balance_bias)."""
    num_experts = router_w.shape[0]
    logits = F.linear(x, router_w)                      # (T, E)
    if bias is not None:
        logits = logits + bias[:x.shape[0]]
    vals, idx = torch.topk(logits, top_k, dim=-1)       # (T, k)
    probs = torch.softmax(vals.float(), dim=-1).to(x.dtype)
    flat = idx.reshape(-1)
    sorted_e, order = torch.sort(flat)
    tok = torch.div(order, top_k, rounding_mode="floor")
    w = probs.reshape(-1).index_select(0, order)
    experts = torch.arange(num_experts, device=x.device, dtype=sorted_e.dtype)
    offs = torch.searchsorted(sorted_e, experts, right=True, out_int32=True)
    return tok, w, offs


def moe_forward(x, router_w, w1, w2, top_k, impl, bias=None):
    """Gated SwiGLU experts: y = sum_k p_k * W2_e(silu(g) * u), [g, u] = W1_e x.

    w1 (E, 2*D, H), w2 (E, H, D) stored contiguous; passed transposed to the grouped GEMM.
    """
    tok, w, offs = route(x, router_w, top_k, bias)
    xs = x.index_select(0, tok)
    h = grouped_mm(xs, w1.transpose(1, 2), offs, impl)  # (R, 2D)
    d = h.shape[1] // 2
    a = F.silu(h[:, :d]) * h[:, d:]
    y = grouped_mm(a, w2.transpose(1, 2), offs, impl)   # (R, H)
    y = y * w.unsqueeze(1)
    out = torch.zeros_like(x)
    out.index_add_(0, tok, y)
    return out
