"""Check of the perf model's prefill-over-cache rule, measured on the GPU.

The model (sim/perf/iteration_cost.cpp, equivalent_prefill_tokens) gives a chunk of n new tokens
over c cached ones the attention efficiency of a causal prefill from an empty cache that attends
to the same number of query-key pairs, keys = n*c + n(n+1)/2, i.e. of S = (sqrt(1 + 8 keys) - 1)/2
tokens. Both do the same flop, so the rule predicts equal times. This script times both with
torch's flash attention (bf16): the chunk with a bottom-right causal mask over c + n keys
(torch.nn.attention.bias.causal_lower_right), the prefill causal over S. KV heads are expanded to
the query heads for the chunk (the bias does not take enable_gqa); FA2 reads one KV head per query
head either way. Writes one JSON line per point: measured chunk time, measured equivalent-prefill
time and their ratio.

usage: python3 chunk_prefill_check.py --out DIR
"""

import argparse
import json
import math
import os

from common import set_safe_env, log, env_fields, Writer

set_safe_env()

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import sdpa_kernel, SDPBackend  # noqa: E402
from torch.nn.attention.bias import causal_lower_right  # noqa: E402

from common import bench  # noqa: E402

# (head_dim, q heads, kv heads): Llama-3.1-8B and GPT-OSS-120B
SHAPES = [(128, 32, 8), (64, 64, 8)]
# (new tokens, cached tokens): agentic turns (a few thousand new tokens over 16k-120k) and others
POINTS = [(512, 16384), (2048, 16384), (2048, 61440), (4096, 61440), (2048, 122880), (8192, 32768),
          (16384, 16384)]


def equivalent_tokens(n, c):
    keys = n * c + n * (n + 1) / 2.0
    return (math.sqrt(1.0 + 8.0 * keys) - 1.0) / 2.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    w = Writer(a.out, "chunk_prefill.jsonl", env_fields(), mode="w")
    for d, hq, hkv in SHAPES:
        for n, c in POINTS:
            s_eq = int(round(equivalent_tokens(n, c)))
            q = torch.randn(1, hq, n, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(1, hq, c + n, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(1, hq, c + n, d, device="cuda", dtype=torch.bfloat16)
            bias = causal_lower_right(n, c + n)
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                t_chunk = bench(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias), target_s=0.05,
                                min_reps=5, max_reps=50)
            del q, k, v
            qe = torch.randn(1, hq, s_eq, d, device="cuda", dtype=torch.bfloat16)
            ke = torch.randn(1, hkv, s_eq, d, device="cuda", dtype=torch.bfloat16)
            ve = torch.randn(1, hkv, s_eq, d, device="cuda", dtype=torch.bfloat16)
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                t_eq = bench(lambda: F.scaled_dot_product_attention(qe, ke, ve, is_causal=True, enable_gqa=True),
                             target_s=0.05, min_reps=5, max_reps=50)
            del qe, ke, ve
            torch.cuda.empty_cache()
            keys = n * c + n * (n + 1) / 2.0
            row = {"op": "attn_chunk_over_cache_check", "head_dim": d, "num_q_heads": hq, "num_kv_heads": hkv,
                   "new_tokens": n, "cached_tokens": c, "keys_per_head": keys, "equivalent_prefill_tokens": s_eq,
                   "chunk_median_s": t_chunk["median_s"], "equivalent_prefill_median_s": t_eq["median_s"],
                   "ratio": t_chunk["median_s"] / t_eq["median_s"],
                   "chunk_flop_per_s": 4.0 * hq * d * keys / t_chunk["median_s"]}
            w.write(row)
            log(f"d={d} hq={hq} n={n:6d} c={c:6d} S_eq={s_eq:6d}: chunk {t_chunk['median_s'] * 1e3:8.3f} ms, "
                f"equivalent prefill {t_eq['median_s'] * 1e3:8.3f} ms, ratio {row['ratio']:.3f}")
    w.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
