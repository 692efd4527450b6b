"""Model shapes used by the calibration grids (public model cards; weights are never loaded)."""

from dataclasses import dataclass, asdict


@dataclass(frozen=True)
class ModelShape:
    name: str
    num_layers: int
    hidden: int
    num_q_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate: int          # dense MLP width (0 for MoE models)
    vocab: int
    num_experts: int = 0
    top_k: int = 0
    expert_dim: int = 0
    qk_norm: bool = False      # Qwen3 applies RMSNorm to q and k per head

    def fields(self):
        d = asdict(self)
        d["model"] = d.pop("name")
        return d


LLAMA_8B = ModelShape("llama-3.1-8b", 32, 4096, 32, 8, 128, 14336, 128256)
QWEN3_32B = ModelShape("qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936, qk_norm=True)
LLAMA_70B = ModelShape("llama-3.1-70b", 80, 8192, 64, 8, 128, 28672, 128256)
# gpt-oss-120b: 36 layers in the real model; the reference engine uses fewer (recorded per row).
GPT_OSS_120B = ModelShape("gpt-oss-120b", 36, 2880, 64, 8, 64, 0, 201088,
                          num_experts=128, top_k=4, expert_dim=2880)

ALL = [LLAMA_8B, QWEN3_32B, GPT_OSS_120B, LLAMA_70B]


def linear_shapes(m: ModelShape, tp: int):
    """(op, N, K) of the dense linears of one layer plus the LM head, sharded Megatron style.

    Column-parallel (N split): qkv, gate_up, lm_head. Row-parallel (K split): o, down.
    """
    qkv_n = (m.num_q_heads + 2 * m.num_kv_heads) * m.head_dim
    o_k = m.num_q_heads * m.head_dim
    out = [("qkv", qkv_n // tp, m.hidden), ("o", m.hidden, o_k // tp)]
    if m.intermediate:
        out += [("gate_up", 2 * m.intermediate // tp, m.hidden),
                ("down", m.hidden, m.intermediate // tp)]
    out.append(("lm_head", m.vocab // tp, m.hidden))
    return out
