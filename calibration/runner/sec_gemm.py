"""Section: dense GEMMs, bf16 (F.linear) and fp8 e4m3 (torch._scaled_mm, per-tensor scales)."""

import torch
import torch.nn.functional as F

from common import bench, log, log_exc, randn, free_gpu
import models

M_ALL = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]

# Points whose estimated time exceeds this are skipped (the efficiency curve is flat there).
MAX_EST_S = {"bf16": 6e-3, "fp8": 4e-3}
EST_FLOP_PER_S = {"bf16": 700e12, "fp8": 1200e12}


def shape_grid(smoke=False):
    """Unique (N, K) with the first (model, layer, tp) that needs it; TP1 shapes first."""
    seen = {}
    order = []
    for tp in (1, 2):
        for m in models.ALL:
            for layer, n, k in models.linear_shapes(m, tp):
                key = (n, k)
                label = f"{m.name}/{layer}/tp{tp}"
                if key in seen:
                    seen[key]["aliases"].append(label)
                    continue
                seen[key] = {"model": m.name, "layer": layer, "tp": tp, "N": n, "K": k,
                             "aliases": [label]}
                order.append(key)
    grid = [seen[k] for k in order]
    if smoke:
        grid = grid[:2]
    return grid


def m_values(n, k, dtype, smoke=False):
    if smoke:
        return [1, 4096]
    out = []
    for m in M_ALL:
        est = 2.0 * m * n * k / EST_FLOP_PER_S[dtype]
        if m <= 64 or est <= MAX_EST_S[dtype]:
            out.append(m)
    return out


def run_bf16(writer, guard, smoke=False):
    peak = 0.0
    for shp in shape_grid(smoke):
        n, k = shp["N"], shp["K"]
        ms = m_values(n, k, "bf16", smoke)
        try:
            w = randn((n, k), std=0.02)
            x = randn((max(ms), k))
        except Exception:
            log_exc(f"gemm bf16 alloc {n}x{k}")
            continue
        for m in ms:
            if not guard.ok():
                break
            xm = x[:m]
            try:
                t = bench(lambda: F.linear(xm, w), target_s=0.015, min_reps=5, max_reps=40)
            except Exception:
                log_exc(f"gemm bf16 M={m} N={n} K={k}")
                continue
            flop = 2.0 * m * n * k
            nbytes = 2.0 * (m * k + n * k + m * n)
            row = {"op": "gemm", "impl": "F.linear", "dtype": "bf16", "out_dtype": "bf16",
                   "M": m, "N": n, "K": k, "model": shp["model"], "layer": shp["layer"],
                   "tp": shp["tp"], "aliases": shp["aliases"], "flop": flop, "bytes": nbytes}
            row.update(t)
            row["flop_per_s"] = flop / t["median_s"]
            row["bytes_per_s"] = nbytes / t["median_s"]
            writer.write(row)
            peak = max(peak, row["flop_per_s"])
        del w, x
        if not guard.ok():
            break
    free_gpu()
    return peak


def run_fp8(writer, guard, smoke=False):
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        log("!! gemm fp8: torch._scaled_mm or float8_e4m3fn missing; skipped")
        return 0.0
    peak = 0.0
    one = torch.tensor(1.0, device="cuda", dtype=torch.float32)
    for shp in shape_grid(smoke):
        n, k = shp["N"], shp["K"]
        ms = m_values(n, k, "fp8", smoke)
        # fast accumulation everywhere; the Llama-8B TP1 shapes also without, for the ratio.
        accums = [True, False] if (shp["model"] == "llama-3.1-8b" and shp["tp"] == 1) else [True]
        try:
            w8 = randn((n, k)).to(torch.float8_e4m3fn)       # (N, K) row-major
            x8 = randn((max(ms), k)).to(torch.float8_e4m3fn)
            w8t = w8.t()                                      # (K, N) column-major, as required
        except Exception:
            log_exc(f"gemm fp8 alloc {n}x{k}")
            continue
        for fast in accums:
            for m in ms:
                if not guard.ok():
                    break
                xm = x8[:m]

                def fn(xm=xm, fast=fast):
                    return torch._scaled_mm(xm, w8t, scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16, use_fast_accum=fast)
                try:
                    t = bench(fn, target_s=0.015, min_reps=5, max_reps=40)
                except Exception:
                    log_exc(f"gemm fp8 M={m} N={n} K={k}")
                    continue
                flop = 2.0 * m * n * k
                nbytes = 1.0 * (m * k + n * k) + 2.0 * m * n
                row = {"op": "gemm", "impl": "torch._scaled_mm", "dtype": "fp8_e4m3",
                       "out_dtype": "bf16", "scaling": "per_tensor", "fast_accum": fast,
                       "M": m, "N": n, "K": k, "model": shp["model"], "layer": shp["layer"],
                       "tp": shp["tp"], "aliases": shp["aliases"], "flop": flop,
                       "bytes": nbytes}
                row.update(t)
                row["flop_per_s"] = flop / t["median_s"]
                row["bytes_per_s"] = nbytes / t["median_s"]
                writer.write(row)
                peak = max(peak, row["flop_per_s"])
        del w8, x8, w8t
        if not guard.ok():
            break
    free_gpu()
    return peak
