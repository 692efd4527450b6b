"""The "torch-reference" engine: a Llama-style transformer with random bf16 weights.

Per layer:  RMSNorm -> fused QKV linear -> (Qwen3: per-head RMSNorm on q, k) -> RoPE ->
            KV-cache write -> SDPA attention -> O linear -> [TP all-reduce] -> residual add ->
            RMSNorm -> MLP -> [TP all-reduce] -> residual add.
Dense MLP:  fused gate_up linear -> SiLU(gate) * up -> down linear.
MoE MLP:    router linear (+ a fixed per-token bias that balances the load, see moe.py) -> top-k -> softmax over the k logits -> sort rows by expert ->
            grouped GEMM gate_up -> SiLU*mul -> grouped GEMM down -> weighted scatter-add.
End:        final RMSNorm on the last token of each sequence only -> LM head -> argmax.

Tensor parallel (tp > 1), Megatron style: QKV and gate_up are column-parallel (each rank holds
num_q_heads/tp q heads and num_kv_heads/tp kv heads, intermediate/tp), O and down are
row-parallel followed by an NCCL all-reduce of the (tokens, hidden) activations: two all-reduces
per layer. MoE layers: every rank routes all tokens (replicated router) to all experts, each
expert's intermediate split over the ranks; the expert block's output is all-reduced. The embedding table is replicated. The LM head is column-parallel (vocab/tp rows per
rank); each rank takes its local max and argmax, and one all_gather of (value, index) pairs
(batch x 2 float32) picks the global argmax, so the logits are never gathered.
"""

import math

import torch
import torch.nn.functional as F

import moe as moe_mod
from sec_attention import sdpa, prefill_backend

try:
    import torch.distributed as dist
except Exception:  # noqa: BLE001
    dist = None

HAS_RMS = hasattr(F, "rms_norm")
RMSNORM_IMPL = "F.rms_norm" if HAS_RMS else "fp32_manual"
EPS = 1e-5


def rms_norm(x, w, eps=EPS):
    if HAS_RMS:
        return F.rms_norm(x, (x.shape[-1],), w, eps)
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def silu_mul(gu):
    d = gu.shape[-1] // 2
    return F.silu(gu[..., :d]) * gu[..., d:]


def rope(x, cos, sin):
    """Rotate-half RoPE; x (..., D), cos/sin broadcastable to (..., D/2)."""
    d = x.shape[-1] // 2
    x1 = x[..., :d]
    x2 = x[..., d:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def _w(shape, std=0.02):
    t = torch.empty(shape, dtype=torch.bfloat16, device="cuda")
    t.normal_(0.0, std)
    return t


def _norm_w(n):
    return 1.0 + _w((n,), 0.02)


class RefModel:
    def __init__(self, shape, num_layers, tp=1, rank=0, moe_impl=None, max_pos=32768,
                 rope_theta=500000.0):
        self.s = shape
        self.L = num_layers
        self.tp = tp
        self.rank = rank
        assert shape.num_q_heads % tp == 0 and shape.num_kv_heads % tp == 0
        self.hq = shape.num_q_heads // tp
        self.hkv = shape.num_kv_heads // tp
        self.D = shape.head_dim
        self.H = shape.hidden
        self.is_moe = shape.num_experts > 0
        self.moe_impl = moe_impl or moe_mod.grouped_impl_name()
        qkv_n = (self.hq + 2 * self.hkv) * self.D
        self.layers = []
        for _ in range(num_layers):
            lw = {"attn_norm": _norm_w(self.H), "wqkv": _w((qkv_n, self.H)),
                  "wo": _w((self.H, self.hq * self.D)), "mlp_norm": _norm_w(self.H)}
            if shape.qk_norm:
                lw["q_norm"] = _norm_w(self.D)
                lw["k_norm"] = _norm_w(self.D)
            if self.is_moe:
                # TP: every rank holds all experts, each expert's intermediate split (Megatron
                # style, like the dense MLP); the router is replicated.
                e, d = shape.num_experts, shape.expert_dim // tp
                lw["router"] = _w((e, self.H))
                lw["w1"] = _w((e, 2 * d, self.H))
                lw["w2"] = _w((e, self.H, d))
            else:
                i = shape.intermediate // tp
                lw["wgu"] = _w((2 * i, self.H))
                lw["wd"] = _w((self.H, i))
            self.layers.append(lw)
        self.embed = _w((shape.vocab, self.H))
        self.final_norm = _norm_w(self.H)
        self.vocab_local = shape.vocab // tp
        self.lm_head = _w((self.vocab_local, self.H))
        inv = 1.0 / (rope_theta ** (torch.arange(0, self.D, 2, dtype=torch.float32,
                                                  device="cuda") / self.D))
        pos = torch.arange(max_pos, dtype=torch.float32, device="cuda")
        ang = torch.outer(pos, inv)
        self.cos = ang.cos().to(torch.bfloat16)
        self.sin = ang.sin().to(torch.bfloat16)
        self.prefill_backend = prefill_backend()
        self.route_bias = (moe_mod.balance_bias(max_pos, shape.num_experts) if self.is_moe
                           else None)

    # ---- sizes ----
    def weight_bytes(self):
        n = sum(t.numel() for lw in self.layers for t in lw.values())
        n += self.embed.numel() + self.final_norm.numel() + self.lm_head.numel()
        return 2 * n

    def kv_bytes_per_token(self):
        return self.L * 2 * self.hkv * self.D * 2

    def kv_view(self, flat, b, c):
        n = self.L * 2 * b * self.hkv * c * self.D
        return flat[:n].view(self.L, 2, b, self.hkv, c, self.D)

    # ---- forward ----
    def _all_reduce(self, x):
        if self.tp > 1:
            dist.all_reduce(x)
        return x

    def _layer(self, lw, x, B, S, kv, cos, sin, decode, c):
        hq, hkv, D = self.hq, self.hkv, self.D
        h = rms_norm(x, lw["attn_norm"])
        qkv = F.linear(h, lw["wqkv"]).view(B, S, hq + 2 * hkv, D)
        q = qkv[:, :, :hq]
        k = qkv[:, :, hq:hq + hkv]
        v = qkv[:, :, hq + hkv:]
        if self.s.qk_norm:
            q = rms_norm(q, lw["q_norm"])
            k = rms_norm(k, lw["k_norm"])
        q = rope(q, cos, sin)
        k = rope(k, cos, sin)
        kc, vc = kv[0], kv[1]                               # (B, hkv, C, D)
        if decode:
            kc[:, :, c - 1] = k[:, 0]
            vc[:, :, c - 1] = v[:, 0]
            o = sdpa(q.transpose(1, 2), kc, vc, False, "auto")          # (B, hq, 1, D)
        else:
            kt = k.transpose(1, 2)
            vt = v.transpose(1, 2)
            kc[:, :, :S] = kt
            vc[:, :, :S] = vt
            o = sdpa(q.transpose(1, 2), kt, vt, True, self.prefill_backend)
        o = o.transpose(1, 2).reshape(B * S, hq * D)
        o = self._all_reduce(F.linear(o, lw["wo"]))
        x = x + o
        h = rms_norm(x, lw["mlp_norm"])
        if self.is_moe:
            m = moe_mod.moe_forward(h, lw["router"], lw["w1"], lw["w2"], self.s.top_k,
                                    self.moe_impl, self.route_bias)
        else:
            m = F.linear(silu_mul(F.linear(h, lw["wgu"])), lw["wd"])
        m = self._all_reduce(m)
        return x + m

    def _sample(self, x_last):
        logits = F.linear(rms_norm(x_last, self.final_norm), self.lm_head)   # (B, V/tp)
        if self.tp == 1:
            return torch.argmax(logits, dim=-1)
        vals, idx = torch.max(logits.float(), dim=-1)
        idx = idx + self.rank * self.vocab_local
        packed = torch.stack((vals, idx.float()), dim=-1).contiguous()         # (B, 2)
        gathered = torch.empty((self.tp,) + tuple(packed.shape), dtype=packed.dtype,
                               device=packed.device)
        dist.all_gather_into_tensor(gathered, packed)
        best = torch.argmax(gathered[..., 0], dim=0, keepdim=True)          # (1, B)
        return torch.gather(gathered[..., 1], 0, best).squeeze(0).long()

    def decode(self, ids, kv, c):
        """One decode step: ids (b,), kv (L, 2, b, hkv, c, D); the new token sits at c-1."""
        b = ids.shape[0]
        x = F.embedding(ids, self.embed)                     # (b, H)
        cos = self.cos[c - 1]
        sin = self.sin[c - 1]
        for li, lw in enumerate(self.layers):
            x = self._layer(lw, x, b, 1, kv[li], cos, sin, True, c)
        return self._sample(x)

    def prefill(self, ids, kv):
        """Prefill: ids (B, S), kv (L, 2, B, hkv, S, D); logits for the last token only."""
        B, S = ids.shape
        x = F.embedding(ids.reshape(-1), self.embed)         # (B*S, H)
        cos = self.cos[:S].view(S, 1, -1)
        sin = self.sin[:S].view(S, 1, -1)
        for li, lw in enumerate(self.layers):
            x = self._layer(lw, x, B, S, kv[li], cos, sin, False, S)
        return self._sample(x.view(B, S, -1)[:, -1])

    def final_hidden_finite(self, ids, kv):
        """Sanity check on random weights: a short prefill gives finite activations."""
        B, S = ids.shape
        x = F.embedding(ids.reshape(-1), self.embed)
        cos = self.cos[:S].view(S, 1, -1)
        sin = self.sin[:S].view(S, 1, -1)
        for li, lw in enumerate(self.layers):
            x = self._layer(lw, x, B, S, kv[li], cos, sin, False, S)
        return bool(torch.isfinite(x).all().item()), float(x.float().std().item())

    # ---- analytic counts (per GPU) ----
    def flop_decode(self, b, c):
        return self._flop_tokens(b) + self.L * 4.0 * b * self.hq * self.D * c \
            + 2.0 * b * self.vocab_local * self.H

    def flop_prefill(self, B, S):
        return self._flop_tokens(B * S) \
            + self.L * 4.0 * B * self.hq * self.D * S * (S + 1) / 2.0 \
            + 2.0 * B * self.vocab_local * self.H

    def _flop_tokens(self, t):
        per_tok = 2.0 * ((self.hq + 2 * self.hkv) * self.D * self.H + self.H * self.hq * self.D)
        if self.is_moe:
            e, k, d = self.s.num_experts, self.s.top_k, self.s.expert_dim // self.tp
            per_tok += 2.0 * e * self.H + 2.0 * k * 3 * d * self.H
        else:
            per_tok += 2.0 * 3 * (self.s.intermediate // self.tp) * self.H
        return self.L * per_tok * t

    def bytes_min(self, tokens, kv_tokens):
        """Weights read once (MoE: expected experts touched under uniform routing) + KV."""
        wb = self.weight_bytes() - 2 * self.embed.numel()
        if self.is_moe:
            e, k, d = self.s.num_experts, self.s.top_k, self.s.expert_dim // self.tp
            touched = e * (1.0 - (1.0 - k / e) ** tokens)
            wb -= self.L * 2 * (e - touched) * 3 * d * self.H
        return float(wb + kv_tokens * self.kv_bytes_per_token())

    def row_fields(self):
        s = self.s
        return {"model": s.name, "num_layers": self.L, "model_num_layers": s.num_layers,
                "hidden": s.hidden, "num_q_heads": s.num_q_heads,
                "num_kv_heads": s.num_kv_heads, "head_dim": s.head_dim,
                "intermediate": s.intermediate, "vocab": s.vocab,
                "num_experts": s.num_experts, "top_k": s.top_k, "expert_dim": s.expert_dim,
                "qk_norm": s.qk_norm, "tp": self.tp, "dtype": "bf16",
                "rmsnorm_impl": RMSNORM_IMPL,
                "moe_impl": self.moe_impl if self.is_moe else None,
                "moe_routing": "balanced_bias" if self.is_moe else None,
                "attn_decode_backend": "auto", "attn_prefill_backend": self.prefill_backend,
                "attention": "full_causal", "lm_head": "last_token_only",
                "sampling": "argmax" if self.tp == 1 else "local_argmax_allgather",
                "weight_bytes_per_gpu": self.weight_bytes(),
                "kv_bytes_per_token_per_gpu": self.kv_bytes_per_token()}


def mib(x):
    return x / (1 << 20)


def ceil_div(a, b):
    return int(math.ceil(a / b))


def make_step(model, mode, b, n):
    """One reference step on random ids with a random KV cache of b x n tokens: (kv buffer, step).

    mode "decode": b sequences decode one token at context n; "prefill": b prompts of n tokens.
    Keep the buffer alive as long as the step is used."""
    flat = torch.randn(int(model.kv_bytes_per_token() // 2 * b * n) + 1024, device="cuda",
                       dtype=torch.bfloat16)
    kv = model.kv_view(flat, b, n)
    if mode == "decode":
        ids = torch.randint(0, model.s.vocab, (b,), device="cuda")
        return flat, lambda: model.decode(ids, kv, n)
    ids = torch.randint(0, model.s.vocab, (b, n), device="cuda")
    return flat, lambda: model.prefill(ids, kv)

