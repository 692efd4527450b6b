"""Kernel-launch costs of the torch-reference engine's execution modes (a kernel measurement,
not an end-to-end one): the CPU cost of launching one small kernel eagerly, and the gap per
kernel when a sequence of kernels is replayed from a CUDA graph.

Method: a chain of N dependent small elementwise kernels (x = x * a + b on a 4096-element bf16
vector, the size of one decode token's hidden state) is run
  - eagerly: host wall clock over the whole chain after synchronize, divided by N;
  - captured in one CUDA graph and replayed: CUDA events around the replay, divided by N;
  - as a single kernel timed with CUDA events (the kernel's own duration).
Rows: {"op": "launch_eager" | "launch_graph" | "kernel_single", "per_kernel_s", "num_kernels", ...}
Usage: python3 launch_overhead.py --out DIR
"""

import argparse
import os
import statistics
import time

import torch

from common import env_fields, Writer


def count_kernels():
    """CUDA kernels launched per transformer layer by the reference engine (torch.profiler on one
    eager step of a 1-layer and a 2-layer model; the difference is one layer)."""
    import engine
    import models
    from torch.profiler import ProfilerActivity, profile

    out = []
    for shape in (models.LLAMA_8B, models.GPT_OSS_120B):
        for mode, b, n in (("decode", 8, 512), ("prefill", 1, 512)):
            counts = {}
            for layers in (1, 2):
                model = engine.RefModel(shape, layers)
                flat, step = engine.make_step(model, mode, b, n)
                step()
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    step()
                    torch.cuda.synchronize()
                kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
                counts[layers] = len(kernels)
                del model, flat, step
                torch.cuda.empty_cache()
            out.append({"op": "kernel_count", "model": shape.name, "mode": mode, "batch": b, "n": n,
                        "kernels_1_layer": counts[1], "kernels_2_layers": counts[2],
                        "kernels_per_layer": counts[2] - counts[1],
                        "kernels_outside_layers": 2 * counts[1] - counts[2],
                        "is_moe": shape.num_experts > 0})
            print(f"kernel_count {shape.name} {mode}: {counts[2] - counts[1]} per layer, "
                  f"{2 * counts[1] - counts[2]} outside")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.cuda.init()
    env = env_fields()
    x = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    a = torch.randn(4096, device="cuda", dtype=torch.bfloat16) * 0.01 + 1.0
    b = torch.randn(4096, device="cuda", dtype=torch.bfloat16) * 0.01
    rows = []

    def chain(n, y):
        for _ in range(n):
            y = torch.addcmul(b, y, a)
        return y

    for n in (100, 1000, 4000):
        chain(n, x)
        torch.cuda.synchronize()
        samples = []
        for _ in range(15):
            t0 = time.perf_counter()
            chain(n, x)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - t0) / n)
        rows.append({"op": "launch_eager", "num_kernels": n, "per_kernel_s": statistics.median(samples),
                     "reps": len(samples), "min_s": min(samples)})

        static = x.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            chain(n, static)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = chain(n, static)
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        samples = []
        for _ in range(15):
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            g.replay()
            e1.record()
            e1.synchronize()
            samples.append(e0.elapsed_time(e1) * 1e-3 / n)
        rows.append({"op": "launch_graph", "num_kernels": n, "per_kernel_s": statistics.median(samples),
                     "reps": len(samples), "min_s": min(samples)})
        del g, out

    samples = []
    for _ in range(200):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        torch.addcmul(b, x, a)
        e1.record()
        e1.synchronize()
        samples.append(e0.elapsed_time(e1) * 1e-3)
    rows.append({"op": "kernel_single", "num_kernels": 1, "per_kernel_s": statistics.median(samples),
                 "reps": len(samples), "min_s": min(samples)})

    rows += count_kernels()

    Writer(args.out, "launch.jsonl", env, mode="w").write_all(rows)
    for r in rows:
        if "per_kernel_s" in r:
            print(f"{r['op']:14s} n={r['num_kernels']:<5d} {r['per_kernel_s'] * 1e6:8.2f} us/kernel")


if __name__ == "__main__":
    main()
