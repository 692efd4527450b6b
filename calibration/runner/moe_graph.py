"""The MoE expert block as the GPU runs it inside a CUDA graph (as in graph-captured decode and in
engines that capture prefill too): rows moe_layer_graph (router, top-k, softmax, sort, gather, two
grouped GEMMs, SwiGLU, weighting, scatter-add: moe.moe_forward), moe_gate_up_graph and
moe_down_graph (the two grouped GEMMs alone, on the same routing), each captured in a graph and
replayed, L2 flushed before every replay. The difference is what the expert block costs beyond its
GEMMs (dispatch and combine), without the host launch costs that an eagerly timed call includes.
gpt-oss-120b-like experts (E=128, top-4, hidden 2880, expert 2880), balanced router (moe.py); the
same with each expert's intermediate halved (1440: the shard one rank holds at TP=2).
Usage: python3 moe_graph.py --out DIR"""
import argparse

import torch

import models
import moe
from common import bench, env_fields, randn, set_safe_env, Writer

TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]


def graphed(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    return g


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tp", default="1,2",
                    help="tensor-parallel shards of each expert's intermediate to measure")
    a = ap.parse_args()
    set_safe_env()
    env = env_fields()
    m = models.GPT_OSS_120B
    e, k, h = m.num_experts, m.top_k, m.hidden
    impl = moe.grouped_impl_name()
    rows_out = []
    for tp in (int(x) for x in a.tp.split(",")):
        rows_out += measure(m, e, k, h, m.expert_dim // tp, tp, impl)
    Writer(a.out, "moe_graph.jsonl", env, mode="w").write_all(rows_out)


def measure(m, e, k, h, d, tp, impl):
    """The expert block and its GEMMs with each expert's intermediate d (= expert_dim / tp: the
    shard one rank holds under tensor parallelism)."""
    torch.manual_seed(0)
    w1 = randn((e, 2 * d, h), std=0.02)
    w2 = randn((e, h, d), std=0.02)
    router = randn((e, h), std=0.02)
    bias = moe.balance_bias(max(TOKENS), e)
    rows_out = []
    for t in TOKENS:
        x = randn((t, h))
        tok, _, offs = moe.route(x, router, k, bias)
        touched = int((torch.diff(offs, prepend=offs.new_zeros(1)) > 0).sum().item())
        r = t * k
        a1 = randn((r, h))
        a2 = randn((r, d))
        cases = (("moe_layer_graph", lambda: moe.moe_forward(x, router, w1, w2, k, impl, bias)),
                 ("moe_gate_up_graph", lambda: moe.grouped_mm(a1, w1.transpose(1, 2), offs, impl)),
                 ("moe_down_graph", lambda: moe.grouped_mm(a2, w2.transpose(1, 2), offs, impl)))
        for op, fn in cases:
            g = graphed(fn)
            tm = bench(g.replay, target_s=0.015, min_reps=5, max_reps=40)
            row = {"op": op, "impl": impl, "dtype": "bf16", "model": m.name, "tokens": t,
                   "top_k": k, "num_experts": e, "rows": r, "experts_touched": touched,
                   "hidden": h, "expert_dim": d, "tp_shard_of": tp, "cuda_graph": True,
                   "routing": "router_linear_topk_balanced_bias"}
            row.update(tm)
            rows_out.append(row)
            print(f"{op} d={d} tokens={t} touched={touched}: {tm['median_s'] * 1e6:.1f} us",
                  flush=True)
            del g
        del x, a1, a2
    del w1, w2, router
    torch.cuda.empty_cache()
    return rows_out


if __name__ == "__main__":
    main()
