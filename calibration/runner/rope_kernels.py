"""The reference engine's rotary embedding (engine.rope: slice, four multiplies, a subtract, an
add and a cat per tensor — 7 kernels over strided views of the fused QKV output), timed like the
other elementwise kernels (section memory). Rows: op "rope", tokens, heads, head_dim.
Usage: python3 rope_kernels.py --out DIR"""
import argparse

import torch

import engine
from common import bench, env_fields, Writer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    env = env_fields()
    rows = []
    for hq, hkv, d in ((32, 8, 128), (64, 8, 128), (64, 8, 64)):
        for t in (1, 8, 64, 256, 1024, 4096, 16384):
            qkv = torch.randn(t, hq + 2 * hkv, d, device="cuda", dtype=torch.bfloat16)
            pos = torch.arange(t, device="cuda", dtype=torch.float32)
            inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
            ang = torch.outer(pos, inv)
            cos = ang.cos().to(torch.bfloat16).view(t, 1, -1)
            sin = ang.sin().to(torch.bfloat16).view(t, 1, -1)
            for name, heads, view in (("q", hq, qkv[:, :hq]), ("k", hkv, qkv[:, hq:hq + hkv])):
                tm = bench(lambda: engine.rope(view, cos, sin), target_s=0.01, min_reps=5, max_reps=50)
                row = {"op": "rope", "impl": "engine.rope", "tensor": name, "dtype": "bf16", "tokens": t,
                       "heads": heads, "head_dim": d, "bytes": 4.0 * t * heads * d}
                row.update(tm)
                rows.append(row)
                print(f"rope {name} t={t} heads={heads} d={d}: {tm['median_s'] * 1e6:.1f} us")
    Writer(a.out, "rope.jsonl", env, mode="w").write_all(rows)


if __name__ == "__main__":
    main()
