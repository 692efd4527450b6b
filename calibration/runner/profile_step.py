"""Diagnostic (not used by the fit): where one reference-engine step spends GPU time, by kernel
name, from torch.profiler. Usage: python3 profile_step.py --out DIR"""
import argparse
import collections
import json
import os

import torch
from torch.profiler import ProfilerActivity, profile

import engine
import models


def run(shape, layers, mode, b, n, out):
    model = engine.RefModel(shape, layers)
    flat, step = engine.make_step(model, mode, b, n)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    agg = collections.defaultdict(lambda: [0, 0.0])
    total = 0.0
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        name = e.name[:90]
        agg[name][0] += 1
        agg[name][1] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
        total += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
    rows = sorted(agg.items(), key=lambda kv: -kv[1][1])
    print(f"== {shape.name} {mode} b={b} n={n} layers={layers}: kernel time {total / 1e3:.2f} ms")
    for name, (cnt, us) in rows[:40]:
        print(f"  {us / 1e3:8.3f} ms {cnt:5d}x  {name}")
    out.append({"model": shape.name, "mode": mode, "b": b, "n": n, "layers": layers, "total_us": total,
                "kernels": [{"name": k, "count": c, "us": u} for k, (c, u) in rows]})
    del model, flat, step
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--case", action="append", default=[],
                    help="model:layers:mode:batch:tokens, e.g. llama-3.1-8b:4:prefill:1:4096 (repeatable)")
    a = ap.parse_args()
    by_name = {m.name: m for m in models.ALL}
    cases = a.case or ["llama-3.1-8b:4:prefill:1:4096", "llama-3.1-8b:4:decode:1:2048",
                       "gpt-oss-120b:2:prefill:1:4096"]
    out = []
    for c in cases:
        name, layers, mode, b, n = c.split(":")
        run(by_name[name], int(layers), mode, int(b), int(n), out)
    with open(os.path.join(a.out, "profile.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
