"""One model's end-to-end rows (tp=1) in a process of its own, started by run_all.

Why a process per model: eager steps are bound by the Python host, and the host cost of the
same step grew with what the process had done before (Qwen3-32B eager decode: 25 ms in a fresh
process, 41-45 ms after the Llama-3.1-8B grid in the same process; diagnostics/diag_host.json).
A serving engine runs one model per process, so each model gets a fresh one here.

First the host cost of this model's eager layer is timed in this same process (host_layer_real
rows, host.jsonl; a component measurement the fit turns into a CPU cost per kernel), then the
model's eager steps and its CUDA-graph decode grid (e2e.jsonl), and last the kernels per layer
(torch.profiler, which slows the host for the rest of the process).

usage: python3 e2e_proc.py --out DIR --model NAME [--smoke] [--budget-s S]
"""

import argparse
import os
import sys
import time

from common import set_safe_env, log, log_exc, env_fields, Writer, Guard

set_safe_env()

import torch  # noqa: E402

import models  # noqa: E402
import sec_e2e  # noqa: E402
from host_and_sustained import host_times, add_kernel_counts, host_cases_for  # noqa: E402

MOE_E2E_LAYERS = 8
MOE_EXTRA = {"attention_note": "all layers full attention (gpt-oss alternates 128-token sliding "
                               "window; not modelled here)",
             "swiglu": "plain silu(g)*u, no clamp, no biases"}


def plan(name, smoke):
    """(shape, layers, decode grid, prefill grid, eager decode points, extra row fields)."""
    by_name = {m.name: m for m in models.ALL}
    shape = by_name[name]
    grid = [(b, c) for c in sec_e2e.DECODE_CTX for b in sec_e2e.DECODE_BATCH]
    if shape.num_experts:
        if smoke:
            return shape, 2, [(1, 512), (64, 512)], [(1, 512)], [], MOE_EXTRA
        dgrid = [(b, c) for c in (512, 2048, 8192) for b in sec_e2e.DECODE_BATCH]
        return shape, MOE_E2E_LAYERS, dgrid, sec_e2e.PREFILL, [(1, 2048)], MOE_EXTRA
    if smoke:
        return shape, 2, [(1, 128), (8, 512)], [(1, 128), (1, 1024)], [(1, 512)], None
    eager = [(1, 2048), (64, 2048)] if shape is models.LLAMA_8B else [(1, 2048)]
    return shape, shape.num_layers, grid, sec_e2e.PREFILL, eager, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--budget-s", type=float, default=90.0)
    ap.add_argument("--eager-only", action="store_true",
                    help="only the eager decode points and prefills of at most 512 tokens (the "
                         "host-sensitive rows), no host rows: for eager_repeat.py")
    a = ap.parse_args()
    t0 = time.time()
    guard = Guard(t0 + a.budget_s)
    env = env_fields()
    shape, layers, dgrid, pgrid, eager, extra = plan(a.model, a.smoke)
    if a.eager_only:
        w = Writer(a.out, "e2e.jsonl", env)
        guard.start_section(f"e2e eager/{shape.name}", a.budget_s)
        sec_e2e.run_model(w, guard, shape, layers, decode_grid=[],
                          prefill_grid=[p for p in pgrid if p[0] * p[1] <= 512],
                          eager_points=eager, extra=extra)
        w.close()
        return 0
    host = []
    try:
        host = host_times(cases=host_cases_for(shape.name), where="e2e_proc.py")
    except Exception:
        log_exc(f"host times {shape.name}")
    torch.cuda.empty_cache()
    w = Writer(a.out, "e2e.jsonl", env)
    guard.start_section(f"e2e/{shape.name}", a.budget_s)
    sec_e2e.run_model(w, guard, shape, layers, decode_grid=dgrid, prefill_grid=pgrid,
                      eager_points=eager, extra=extra)
    w.close()
    try:   # the profiler last: it slows the host for the rest of the process
        add_kernel_counts(host)
        hw = Writer(a.out, "host.jsonl", env)
        for r in host:
            hw.write(r)
            log(f"host tp1 {r['model']} {r['mode']}: {r['per_layer_s'] * 1e6:.1f} us/layer, "
                f"{r['kernels_per_layer']:.0f} kernels, {r['per_kernel_s'] * 1e6:.1f} us/kernel")
        hw.close()
    except Exception:
        log_exc(f"host kernel counts {shape.name}")
    log(f"e2e {shape.name} done in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
