"""Diagnostic (not used by the fit): is an eager reference-engine step bound by the CPU that
launches it? For real model shapes, times a step with CUDA events and measures the CPU time the
Python call takes to return (launches are asynchronous, so this is the host cost while the GPU
queue does not fill), for the full model and for 1- and 2-layer models (per-layer host cost).
Usage: python3 diag_host.py --out DIR"""
import argparse
import json
import os
import statistics
import time

import torch

import engine
import models


def measure(shape, layers, mode, b, n):
    model = engine.RefModel(shape, layers)
    flat, step = engine.make_step(model, mode, b, n)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    host, ev = [], []
    for _ in range(15):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        s.record()
        step()
        e.record()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        host.append(t1 - t0)
        ev.append(s.elapsed_time(e) / 1e3)
    del model, flat, step
    torch.cuda.empty_cache()
    return statistics.median(host), statistics.median(ev)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows = []
    cases = [(models.LLAMA_8B, "decode", 1, 2048), (models.LLAMA_8B, "decode", 64, 2048),
             (models.LLAMA_8B, "prefill", 1, 128), (models.LLAMA_8B, "prefill", 1, 512),
             (models.QWEN3_32B, "decode", 1, 2048), (models.QWEN3_32B, "prefill", 1, 128),
             (models.GPT_OSS_120B, "decode", 1, 2048), (models.GPT_OSS_120B, "prefill", 1, 128)]
    for shape, mode, b, n in cases:
        full = shape.num_layers if shape.num_experts == 0 else 8
        r = {"model": shape.name, "mode": mode, "batch": b, "n": n}
        for layers in (1, 2, full):
            h, e = measure(shape, layers, mode, b, n)
            r[f"L{layers}_host_s"] = h
            r[f"L{layers}_event_s"] = e
        r["host_per_layer_s"] = r["L2_host_s"] - r["L1_host_s"]
        r["full_layers"] = full
        rows.append(r)
        print(json.dumps(r), flush=True)
    with open(os.path.join(a.out, "diag_host.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
