"""Calibration runner for Inference Tycoon: measures the whole grid on one GPU machine in one call.

usage (from the repository root on the GPU machine):
    cd calibration/runner && PYTHONUNBUFFERED=1 python3 run_all.py --out $OUT

Writes one JSON-lines file per section under --out, each row flushed as it is measured, and
prints a short summary table last. See README.md beside this file for what each row means.
Sections run in priority order under a global time guard (--budget-s); whatever does not fit is
skipped and reported.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

from common import (set_safe_env, log, log_exc, env_fields, Writer, Guard, free_gpu, fmt_s,
                    py_version)

set_safe_env()

import torch  # noqa: E402

import models  # noqa: E402

BUDGETS = {            # seconds per section (the global guard still applies)
    "e2e/llama-3.1-8b": 70,
    "e2e/qwen3-32b": 95,
    "e2e/gpt-oss-120b": 50,
    "gemm_bf16": 75,
    "attention": 40,
    "memory": 25,
    "moe_grouped": 20,
    "multi_gpu": 260,
    "gemm_fp8": 60,
}
MULTI_BUDGETS = {"nccl": 30, "tp2_model": 55}


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as ex:  # noqa: BLE001
        return f"({cmd[0]} failed: {ex})"


def e2e_model(out_dir, guard, name, smoke):
    """One model's tp=1 end-to-end rows, in a fresh process (see e2e_proc.py for why)."""
    budget = min(BUDGETS[f"e2e/{name}"], guard.left())
    if budget < 15:
        log(f"skip e2e {name}: global guard")
        guard.skipped["e2e"] = guard.skipped.get("e2e", 0) + 1
        return
    free_gpu()
    cmd = [sys.executable, "e2e_proc.py", "--out", out_dir, "--model", name,
           "--budget-s", f"{budget:.0f}"] + (["--smoke"] if smoke else [])
    try:
        rc = subprocess.run(cmd, timeout=budget + 120).returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    log(f"e2e {name}: process exit {rc}")
    if rc != 0:
        raise RuntimeError(f"e2e {name}: process exit {rc}")


def multi_gpu_section(out_dir, guard, smoke):
    n = torch.cuda.device_count()
    if n < 2:
        log(f"skip multi-GPU: {n} GPU(s)")
        return
    if guard.left() < 45:
        log("skip multi-GPU: global guard")
        guard.skipped["multi_gpu"] = 1
        return
    import torch.multiprocessing as mp
    import multi_gpu
    free_gpu()
    wdeadline = min(guard.deadline, time.time() + BUDGETS["multi_gpu"])
    ctx = mp.get_context("spawn")
    # One pair of processes per task: NCCL, then each model in fresh processes (e2e_proc.py
    # says why).
    tasks = ["nccl", "llama-3.1-8b"] if smoke else ["nccl", "llama-3.1-8b", "qwen3-32b",
                                                     "llama-3.1-70b", "gpt-oss-120b"]
    for i, task in enumerate(tasks):
        if wdeadline - time.time() < 25:
            log(f"skip multi-GPU {task}: budget")
            guard.skipped["multi_gpu"] = guard.skipped.get("multi_gpu", 0) + 1
            continue
        port = 29500 + random.randint(0, 2000) + 7 * i
        procs = [ctx.Process(target=multi_gpu.worker,
                             args=(r, 2, out_dir, wdeadline, smoke, port, MULTI_BUDGETS, task))
                 for r in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=max(1.0, wdeadline - time.time() + 45))
        for p in procs:
            if p.is_alive():
                log(f"!! multi-GPU worker pid {p.pid} still running past its deadline: terminating")
                p.terminate()
                p.join(10)
                if p.is_alive():
                    p.kill()
                    p.join(5)
            log(f"multi-GPU {task} worker pid {p.pid} exit code {p.exitcode}")


def read_rows(path):
    rows = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        rows.append(json.loads(line))
                    except ValueError:
                        pass
    return rows


def pick(rows, **kw):
    for r in rows:
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def summary(out_dir, guard, t0):
    files = ["e2e.jsonl", "gemm.jsonl", "attention.jsonl", "memory.jsonl", "moe_grouped.jsonl",
             "nccl.jsonl", "e2e_tp2.jsonl"]
    data = {f: read_rows(os.path.join(out_dir, f)) for f in files}
    lines = ["", "================ SUMMARY ================"]
    lines.append("rows: " + ", ".join(f"{f}={len(v)}" for f, v in data.items()))
    copies = [r for r in data["memory.jsonl"] if r["op"] == "copy_d2d"]
    if copies:
        best = max(copies, key=lambda r: r["bytes_per_s"])
        lines.append(f"copy d2d peak: {best['bytes_per_s'] / 1e9:.0f} GB/s (r+w) at "
                     f"{best['size_bytes'] >> 20} MiB")
    g = data["gemm.jsonl"]
    for dt, fa in (("bf16", None), ("fp8_e4m3", True), ("fp8_e4m3", False)):
        rs = [r for r in g if r["dtype"] == dt and (fa is None or r.get("fast_accum") == fa)]
        if rs:
            b = max(rs, key=lambda r: r["flop_per_s"])
            tag = dt if fa is None else f"{dt} fast_accum={fa}"
            lines.append(f"gemm {tag} peak: {b['flop_per_s'] / 1e12:.0f} TFLOP/s at "
                         f"M={b['M']} N={b['N']} K={b['K']}")
    a = data["attention.jsonl"]
    r = pick(a, op="attn_decode", head_dim=128, num_q_heads=32, batch=64, context=2048)
    if r:
        lines.append(f"attn decode d128 32/8 b=64 c=2048: {fmt_s(r['median_s'])} "
                     f"({r['bytes'] / r['median_s'] / 1e9:.0f} GB/s KV)")
    for be in ("flash", "auto"):
        r = pick(a, op="attn_prefill", head_dim=128, num_q_heads=32, seq_len=4096, backend=be)
        if r:
            lines.append(f"attn prefill d128 32/8 S=4096 {be}: {fmt_s(r['median_s'])} "
                         f"({r['flop_per_s'] / 1e12:.0f} TFLOP/s)")
    m = data["moe_grouped.jsonl"]
    for t in (1, 64, 4096):
        r = pick(m, op="moe_gate_up", tokens=t)
        if r:
            lines.append(f"moe gate_up grouped tokens={t}: {fmt_s(r['median_s'])} "
                         f"touched={r['experts_touched']} ({r['impl']})")
    n = data["nccl.jsonl"]
    for size in (4096, 1 << 20, 64 << 20, 256 << 20):
        for g in (False, True):
            r = pick(n, size_bytes=size, cuda_graph=g)
            if r:
                lines.append(f"all_reduce {size >> 10} KiB graph={int(g)}: {fmt_s(r['median_s'])}"
                             f" busbw {r['busbw_bytes_per_s'] / 1e9:.0f} GB/s")
    for fname in ("e2e.jsonl", "e2e_tp2.jsonl"):
        e = data[fname]
        for model in ("llama-3.1-8b", "qwen3-32b", "gpt-oss-120b", "llama-3.1-70b"):
            parts = []
            for b in (1, 64, 32):
                r = pick(e, model=model, mode="decode", batch=b, context=2048, cuda_graph=True)
                if r:
                    parts.append(f"dec b={b} c=2048 {fmt_s(r['median_s'])}")
            r = pick(e, model=model, mode="decode", batch=1, context=2048, cuda_graph=False)
            if r:
                parts.append(f"eager b=1 {fmt_s(r['median_s'])}")
            for s in (2048, 4096):
                r = pick(e, model=model, mode="prefill", batch=1, prompt_len=s)
                if r:
                    parts.append(f"prefill {s} {fmt_s(r['median_s'])}")
            if parts:
                r0 = pick(e, model=model)
                lines.append(f"{fname[:-6]} {model} L={r0['num_layers']} tp={r0['tp']}: "
                             + "; ".join(parts))
    if guard.skipped:
        lines.append("points skipped by the time guard: " + json.dumps(guard.skipped))
    lines.append(f"elapsed {time.time() - t0:.0f} s")
    log("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=450.0)
    ap.add_argument("--smoke", action="store_true", help="tiny grids, every code path")
    ap.add_argument("--skip", default="", help="comma-separated section names to skip")
    args = ap.parse_args()
    t0 = time.time()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    guard = Guard(t0 + args.budget_s)
    skip = set(s for s in args.skip.split(",") if s)

    if not torch.cuda.is_available():
        log("no CUDA device")
        return 1
    log(f"python {py_version()} torch {torch.__version__} cuda {torch.version.cuda} "
        f"gpus {torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}")
    log(sh(["nvidia-smi", "--query-gpu=index,name,driver_version,memory.total,clocks.sm,"
            "clocks.max.sm,power.limit", "--format=csv,noheader"]))
    log(sh(["nvidia-smi", "topo", "-m"]))
    env = env_fields()
    torch.manual_seed(0)

    w = {name: Writer(out, name, env) for name in
         ("gemm.jsonl", "attention.jsonl", "memory.jsonl", "moe_grouped.jsonl")}

    failed = []  # sections that raised: the run still writes what the others measured, then fails

    def section(name, fn):
        if name in skip:
            log(f"skip {name}: --skip")
            return
        if guard.left() < 5:
            log(f"skip {name}: global guard")
            guard.skipped[name] = guard.skipped.get(name, 0) + 1
            return
        if name in BUDGETS:
            guard.start_section(name, BUDGETS[name])
        t = time.time()
        try:
            fn()
        except Exception:
            log_exc(f"section {name}")
            failed.append(name)
        free_gpu()
        log(f"-- {name} done in {time.time() - t:.1f} s (global left {guard.left():.0f} s)")

    import sec_gemm
    import sec_attention
    import sec_memory
    import sec_moe
    for name in ("llama-3.1-8b", "qwen3-32b"):
        section(f"e2e_{name}", lambda name=name: e2e_model(out, guard, name, args.smoke))
    section("gemm_bf16", lambda: sec_gemm.run_bf16(w["gemm.jsonl"], guard, args.smoke))
    section("attention", lambda: sec_attention.run(w["attention.jsonl"], guard, args.smoke))
    section("memory", lambda: sec_memory.run(w["memory.jsonl"], guard, args.smoke))
    section("moe_grouped", lambda: sec_moe.run(w["moe_grouped.jsonl"], guard, args.smoke))
    section("e2e_gpt-oss-120b", lambda: e2e_model(out, guard, "gpt-oss-120b", args.smoke))
    section("multi_gpu", lambda: multi_gpu_section(out, guard, args.smoke))
    section("gemm_fp8", lambda: sec_gemm.run_fp8(w["gemm.jsonl"], guard, args.smoke))
    for wr in w.values():
        wr.close()
    summary(out, guard, t0)
    if failed:
        log("FAILED sections (their rows are missing or partial): " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
