"""Prefill-side kernels of MoE and MLA models and large-M FP8 GEMMs in one call (separate command,
not part of run_all; sec_prefill_moe_mla.py says what each part measures).

usage (from the repository root on the GPU machine):
    cd calibration/runner && PYTHONUNBUFFERED=1 python3 prefill_moe_mla.py --out $OUT

Options: --smoke (tiny grids, every code path, about a minute), --budget-s (global guard, seconds
from start), --skip (comma-separated part names: moe_fp8, moe_mxfp4, routing, mla, gemm70b).
Writes moe_fp8_grouped.jsonl, moe_mxfp4_grouped.jsonl, moe_routing.jsonl, mla_prefill.jsonl and
gemm_fp8_large_m.jsonl under --out (each file started afresh, rows fsynced as measured) and prints
a summary table last.
"""

import argparse
import json
import os
import sys
import time

from common import set_safe_env, log, log_exc, env_fields, Writer, Guard, free_gpu, py_version

set_safe_env()

import torch  # noqa: E402

import sec_prefill_moe_mla as sec  # noqa: E402

PARTS = [  # (name, file, budget s), in priority order
    ("moe_fp8", "moe_fp8_grouped.jsonl", 150),
    ("moe_mxfp4", "moe_mxfp4_grouped.jsonl", 150),
    ("routing", "moe_routing.jsonl", 50),
    ("mla", "mla_prefill.jsonl", 130),
    ("gemm70b", "gemm_fp8_large_m.jsonl", 100),
]


def read_rows(path):
    rows = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(x) for x in f if x.strip()]
    return rows


def summary(out, guard, t0):
    lines = ["", "================ SUMMARY (TFLOP/s; fraction of dense peak bf16 989 / fp8 1979) "
             "================"]
    peak = {"bf16": 989e12, "fp8_e4m3": 1979e12, "mxfp4_w4a16": 989e12}
    for _name, fname, _b in PARTS:
        rows = read_rows(os.path.join(out, fname))
        lines.append(f"{fname}: {len(rows)} rows")
        for r in rows:
            if r["op"] == "moe_expert_gemm" and r["tokens"] in (16, 2048, 8192, 16384) and (
                    r["dtype"] != "mxfp4_w4a16" or r["gemm"] == "gate_up"):
                lines.append(f"  {r['model']:13s} {r['gemm']:8s} {r['impl']:26s} t={r['tokens']:5d} "
                             f"{r['median_s'] * 1e3:8.3f} ms {r['flop_per_s'] / 1e12:6.0f} "
                             f"({r['flop_per_s'] / peak[r['dtype']]:.2f})")
            elif r["op"] in ("mla_attn_prefill", "mla_prefill_expanded") and r["seq_len"] in (
                    4096, 16384, 32768):
                lines.append(f"  mla tp={r['tp']} {r['op']:20s} {r['backend']:10s} S={r['seq_len']:5d} "
                             f"{r['median_s'] * 1e3:8.3f} ms {r['flop_per_s'] / 1e12:6.0f}")
            elif r["op"] == "gemm_large_m" and r["M"] == 8192:
                lines.append(f"  70b {r['layer']:7s} tp={r['tp']} {r['dtype']:8s} {r['scaling']:22s} "
                             f"M={r['M']} {r['flop_per_s'] / 1e12:6.0f} "
                             f"({r['flop_per_s'] / peak[r['dtype']]:.2f})")
            elif r["op"].startswith("moe_") and r["op"] != "moe_expert_gemm" and \
                    r["tokens"] in (2048, 16384) and r["op"] != "moe_shared_gemm":
                lines.append(f"  {r['model']:13s} {r['op']:22s} t={r['tokens']:5d} "
                             f"{r['median_s'] * 1e6:9.1f} us")
    if guard.skipped:
        lines.append("points skipped by the time guard: " + json.dumps(guard.skipped))
    lines.append(f"elapsed {time.time() - t0:.0f} s")
    log("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=480.0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    t0 = time.time()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    skip = set(x for x in a.skip.split(",") if x)
    guard = Guard(t0 + a.budget_s)
    if not torch.cuda.is_available():
        log("no CUDA device")
        return 1
    import triton
    log(f"python {py_version()} torch {torch.__version__} cuda {torch.version.cuda} triton "
        f"{triton.__version__} gpu {torch.cuda.get_device_name(0)}; "
        f"_scaled_grouped_mm: {hasattr(torch, '_scaled_grouped_mm')}, "
        f"_grouped_mm: {hasattr(torch, '_grouped_mm')}")
    env = env_fields()
    env["triton"] = triton.__version__
    torch.manual_seed(0)
    fns = {"moe_fp8": sec.run_moe_fp8, "moe_mxfp4": sec.run_moe_mxfp4, "routing": sec.run_routing,
           "mla": sec.run_mla, "gemm70b": sec.run_gemm70b}
    failed = []
    for name, fname, budget in PARTS:
        if name in skip:
            continue
        if guard.left() < 5:
            guard.skipped[name] = guard.skipped.get(name, 0) + 1
            continue
        guard.start_section(name, budget)
        w = Writer(out, fname, env, mode="w")
        t = time.time()
        try:
            fns[name](w, guard, a.smoke)
        except Exception:
            log_exc(f"part {name}")
            failed.append(name)
        w.close()
        free_gpu()
        log(f"-- {name}: {w.rows} rows in {time.time() - t:.1f} s (global left {guard.left():.0f} s)")
    summary(out, guard, t0)
    if failed:
        log("FAILED parts: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
