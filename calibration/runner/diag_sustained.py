"""Diagnostic (not used by the fit): does a long compute-bound prefill run slower than the sum of
its kernels timed in isolation? Times a 32-layer Llama-3.1-8B prefill of 16k tokens with CUDA
events (as sec_e2e does) and under the profiler (kernel sum), and a bf16 GEMM run back to back
for 3 s with the SM clock sampled. Usage: python3 diag_sustained.py --out DIR"""
import argparse
import json
import os
import subprocess
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

import engine
import models


def smi_clock():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True,
                             timeout=5).stdout.strip()
        return out
    except Exception as e:  # noqa: BLE001
        return str(e)


def events_time(fn, reps):
    times = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    res = {"clock_idle": smi_clock()}
    shape = models.LLAMA_8B
    for layers, n in ((32, 16384), (32, 2048), (4, 16384)):
        model = engine.RefModel(shape, layers)
        per_tok = model.kv_bytes_per_token()
        flat = torch.randn(int(per_tok // 2 * n) + 1024, device="cuda", dtype=torch.bfloat16)
        kv = model.kv_view(flat, 1, n)
        ids = torch.randint(0, shape.vocab, (1, n), device="cuda")
        step = lambda: model.prefill(ids, kv)  # noqa: E731
        step()
        torch.cuda.synchronize()
        t_ev = events_time(step, 6)
        clk = smi_clock()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        ksum = sum(e.device_time_total for e in prof.events()
                   if e.device_type == torch.autograd.DeviceType.CUDA) / 1e3
        # idle 2 s, then one step: a cool start
        torch.cuda.synchronize()
        time.sleep(2.0)
        t_cool = events_time(step, 1)
        key = f"llama8b_L{layers}_n{n}"
        res[key] = {"events_ms": t_ev, "kernel_sum_ms": ksum, "cool_single_ms": t_cool, "clock_after": clk}
        print(key, res[key], flush=True)
        del model, flat, kv
        torch.cuda.empty_cache()
    # sustained GEMM
    x = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(28672, 4096, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    time.sleep(2.0)
    trace = []
    t0 = time.time()
    while time.time() - t0 < 4.0:
        ts = events_time(lambda: F.linear(x, w), 5)
        trace.append({"t_s": round(time.time() - t0, 3), "ms": sorted(ts)[2], "smi": smi_clock()})
    flop = 2 * 16384 * 28672 * 4096
    for r in trace:
        r["tflops"] = flop / (r["ms"] / 1e3) / 1e12
    res["gemm_sustained_trace"] = trace
    print("gemm trace", [(r["t_s"], round(r["tflops"]), r["smi"]) for r in trace[:: max(1, len(trace) // 12)]])
    with open(os.path.join(a.out, "diag_sustained.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
