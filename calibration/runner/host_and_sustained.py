"""Two kernel-level effects the isolated kernel timings cannot show (see README):

1. Host (CPU) cost of the reference engine's eager steps at real shapes: the time the call of a
   1- and a 3-layer step takes to return (launches are asynchronous); rows `host_layer_real`
   for a dense and a MoE model, decode and prefill, tp 1 and 2 (2 processes), with the kernels
   one layer launches. (An earlier version timed tiny shapes up to a synchronize: rows
   `host_layer` in the data of 2026-11-30 01:30, kept for the record, not used by the fit.)
2. Sustained tensor-core throughput: the same GEMM / flash-attention call back to back for
   ~150 ms (as a long prefill runs), timed as a whole with CUDA events, against the isolated
   median of the same call with an L2 flush before each (the `gemm` section's method).
   Rows `gemm_sustained`, `attn_prefill_sustained`.
Usage: python3 host_and_sustained.py --out DIR
"""

import argparse
import datetime
import os
import statistics
import time

import torch
import torch.nn.functional as F

from common import env_fields, set_safe_env, bench, Writer

HOST_CASES = (("llama-3.1-8b", "decode", 1, 2048), ("llama-3.1-8b", "prefill", 1, 128),
              ("gpt-oss-120b", "decode", 1, 2048), ("gpt-oss-120b", "prefill", 1, 128))


def host_cases_for(name):
    """The host cases of one model: an eager decode step and a short prefill."""
    return ((name, "decode", 1, 2048), (name, "prefill", 1, 128))


def _kernels(step):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def host_rows(tp=1, rank=0, cases=HOST_CASES, where="host_and_sustained.py"):
    """CPU cost of one eager layer of the reference engine at real model shapes, then the
    kernels one layer launches; see host_times and add_kernel_counts."""
    rows = host_times(tp, rank, cases, where)
    add_kernel_counts(rows, tp, rank)
    return rows


def _step(row, layers, tp, rank):
    import engine
    import models
    shape = {m.name: m for m in models.ALL}[row["model"]]
    model = engine.RefModel(shape, layers, tp=tp, rank=rank)
    flat, step = engine.make_step(model, row["mode"], row["batch"], row["n"])
    return model, flat, step


def host_times(tp=1, rank=0, cases=HOST_CASES, where="host_and_sustained.py"):
    """The time the Python call of an eager step takes to return (kernel launches are
    asynchronous, and a 1- or 3-layer step is far too short to fill the launch queue): 3 layers
    minus 1, halved. Rows without kernel counts: add_kernel_counts completes them.

    Call this before anything in the process has used torch.profiler: after a profiler session
    the same steps cost the host up to 2-3x more (2026-11-30 run: Llama-3.1-8B eager decode 32 ms
    against 11.7 ms in a process that had not profiled)."""
    import models
    by_name = {m.name: m for m in models.ALL}
    out = []
    for name, mode, b, n in cases:
        row = {"op": "host_layer_real", "model": name, "moe": by_name[name].num_experts > 0,
               "mode": mode, "batch": b, "n": n, "tp": tp, "reps": 30, "measured_in": where}
        host = {}
        for layers in (1, 3):
            model, flat, step = _step(row, layers, tp, rank)
            for _ in range(5):
                step()
            torch.cuda.synchronize()
            samples = []
            for _ in range(30):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                step()
                samples.append(time.perf_counter() - t0)
            torch.cuda.synchronize()
            host[layers] = statistics.median(samples)
            del model, flat, step
            torch.cuda.empty_cache()
        row["per_layer_s"] = (host[3] - host[1]) / 2.0
        row["outside_layers_s"] = host[1] - row["per_layer_s"]
        row["step_1_layer_s"] = host[1]
        row["step_3_layers_s"] = host[3]
        out.append(row)
    return out


def add_kernel_counts(rows, tp=1, rank=0):
    """Kernels one layer launches (torch.profiler, 3 layers minus 1, halved) and the CPU cost
    per kernel. Uses the profiler: call it last in a process."""
    for row in rows:
        kern = {}
        for layers in (1, 3):
            model, flat, step = _step(row, layers, tp, rank)
            step()
            torch.cuda.synchronize()
            kern[layers] = _kernels(step)
            del model, flat, step
            torch.cuda.empty_cache()
        k_layer = (kern[3] - kern[1]) / 2.0
        row["kernels_per_layer"] = k_layer
        row["per_kernel_s"] = row["per_layer_s"] / k_layer
        row["kernels_outside_layers"] = kern[1] - k_layer
    return rows


def sustained_rows():
    out = []
    for (m, n, k) in ((4096, 28672, 4096), (4096, 4096, 14336), (16384, 6144, 4096), (512, 28672, 4096)):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02
        iso = bench(lambda: F.linear(x, w), target_s=0.02, min_reps=5, max_reps=30)["median_s"]
        reps = max(20, int(0.15 / iso))
        for _ in range(10):
            F.linear(x, w)
        torch.cuda.synchronize()
        runs = []
        for _ in range(5):
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(reps):
                F.linear(x, w)
            e1.record()
            e1.synchronize()
            runs.append(e0.elapsed_time(e1) * 1e-3 / reps)
        out.append({"op": "gemm_sustained", "dtype": "bf16", "M": m, "N": n, "K": k, "calls": reps,
                    "median_s": statistics.median(runs), "isolated_median_s": iso,
                    "flop": 2.0 * m * n * k})
        del x, w
    from sec_attention import sdpa
    for s, hq, hkv, d in ((4096, 32, 8, 128), (8192, 64, 8, 64)):
        q = torch.randn(1, hq, s, d, device="cuda", dtype=torch.bfloat16)
        kk = torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16)
        fn = lambda: sdpa(q, kk, v, True, "flash")  # noqa: E731
        iso = bench(fn, target_s=0.02, min_reps=5, max_reps=30)["median_s"]
        reps = max(20, int(0.15 / iso))
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        runs = []
        for _ in range(5):
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(reps):
                fn()
            e1.record()
            e1.synchronize()
            runs.append(e0.elapsed_time(e1) * 1e-3 / reps)
        out.append({"op": "attn_prefill_sustained", "backend": "flash", "seq_len": s, "num_q_heads": hq,
                    "num_kv_heads": hkv, "head_dim": d, "calls": reps, "median_s": statistics.median(runs),
                    "isolated_median_s": iso})
    return out


def tp_worker(rank, world, out_dir, port):
    set_safe_env()
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=120))
    x = torch.ones(1, device="cuda")
    dist.all_reduce(x)
    rows = host_rows(tp=world, rank=rank)
    if rank == 0:
        Writer(out_dir, "host_tp2.jsonl", env_fields()).write_all(rows)
        for r in rows:
            print(f"host tp{world} {r['model']} {r['mode']}: {r['per_layer_s'] * 1e6:.1f} us/layer, "
                  f"{r['kernels_per_layer']:.0f} kernels, {r['per_kernel_s'] * 1e6:.1f} us/kernel")
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--host-only", action="store_true", help="skip the sustained rows")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    set_safe_env()
    env = env_fields()
    rows = host_rows()
    Writer(args.out, "host.jsonl", env).write_all(rows)
    for r in rows:
        print(f"host tp1 {r['model']} {r['mode']}: {r['per_layer_s'] * 1e6:.1f} us/layer, "
              f"{r['kernels_per_layer']:.0f} kernels, {r['per_kernel_s'] * 1e6:.1f} us/kernel, "
              f"outside {r['outside_layers_s'] * 1e6:.0f} us")
    rows = [] if args.host_only else sustained_rows()
    if rows:
        Writer(args.out, "sustained.jsonl", env).write_all(rows)
    for r in rows:
        print(f"{r['op']} {r.get('M', r.get('seq_len'))}: sustained {r['median_s'] * 1e6:.1f} us vs "
              f"isolated {r['isolated_median_s'] * 1e6:.1f} us ({r['median_s'] / r['isolated_median_s']:.3f}x)")
    if torch.cuda.device_count() >= 2:
        torch.cuda.empty_cache()
        import torch.multiprocessing as mp
        mp.get_context("spawn")
        mp.spawn(tp_worker, args=(2, args.out, 29533), nprocs=2, join=True)


if __name__ == "__main__":
    main()
