"""Section: device-to-device copy bandwidth and the engine's elementwise / norm kernels."""

import torch

from common import bench, log_exc, randn, free_gpu
import engine

COPY_SIZES = [1 << p for p in range(20, 33)]            # 1 MiB .. 4 GiB
TOKENS = [1, 16, 64, 256, 1024, 4096, 16384]
HIDDEN = [2880, 4096, 5120, 8192]
INTER = [2880, 14336, 25600, 28672]


def run(writer, guard, smoke=False):
    best_bw = 0.0
    sizes = [1 << 20, 1 << 30] if smoke else COPY_SIZES
    for size in sizes:
        if not guard.ok():
            break
        try:
            src = randn((size // 2,))
            dst = torch.empty_like(src)
            t = bench(lambda: dst.copy_(src), target_s=0.02, min_reps=5, max_reps=50)
        except Exception:
            log_exc(f"copy {size}")
            continue
        nbytes = 2.0 * size
        row = {"op": "copy_d2d", "impl": "Tensor.copy_", "dtype": "bf16", "size_bytes": size,
               "flop": 0.0, "bytes": nbytes}
        row.update(t)
        row["bytes_per_s"] = nbytes / t["median_s"]
        writer.write(row)
        best_bw = max(best_bw, row["bytes_per_s"])
        del src, dst
    free_gpu()

    tokens = [1, 4096] if smoke else TOKENS
    hidden = [4096] if smoke else HIDDEN
    inter = [14336] if smoke else INTER
    for t_ in tokens:
        for h in hidden:
            if not guard.ok():
                break
            x = randn((t_, h))
            r = randn((t_, h))
            w = 1.0 + randn((h,), std=0.02)
            for op, fn, flop, nbytes in (
                    ("rmsnorm", lambda: engine.rms_norm(x, w), 4.0 * t_ * h,
                     2.0 * (2 * t_ * h + h)),
                    ("residual_add", lambda: x + r, 1.0 * t_ * h, 2.0 * 3 * t_ * h)):
                try:
                    tm = bench(fn, target_s=0.01, min_reps=5, max_reps=50)
                except Exception:
                    log_exc(f"{op} {t_}x{h}")
                    continue
                row = {"op": op, "impl": engine.RMSNORM_IMPL if op == "rmsnorm" else "add",
                       "dtype": "bf16", "tokens": t_, "hidden": h, "flop": flop,
                       "bytes": nbytes}
                row.update(tm)
                row["bytes_per_s"] = nbytes / tm["median_s"]
                writer.write(row)
        for i in inter:
            if not guard.ok():
                break
            gu = randn((t_, 2 * i))
            try:
                tm = bench(lambda: engine.silu_mul(gu), target_s=0.01, min_reps=5, max_reps=50)
            except Exception:
                log_exc(f"silu_mul {t_}x{i}")
                continue
            nbytes = 2.0 * (2 * t_ * i + t_ * i)
            row = {"op": "silu_mul", "impl": "F.silu(g)*u", "dtype": "bf16", "tokens": t_,
                   "intermediate": i, "flop": 5.0 * t_ * i, "bytes": nbytes}
            row.update(tm)
            row["bytes_per_s"] = nbytes / tm["median_s"]
            writer.write(row)
    free_gpu()
    _attention_glue(writer, guard, [1, 4096] if smoke else TOKENS)
    free_gpu()
    return best_bw


HEAD_SHAPES = [(32, 8, 128), (64, 8, 128), (64, 8, 64)]     # (q heads, kv heads, head dim)


def _attention_glue(writer, guard, tokens):
    """The reference engine's memory-bound steps around attention, called exactly as
    engine.RefModel._layer calls them on views of the fused QKV output (B=1, S tokens):
    - qk_norm: per-head RMSNorm of q (Qwen3), rows of head_dim elements over a strided view;
    - kv_write: the prefill's copy of k (transposed view) into the KV cache (B, hkv, C, D).
    bytes = read + write of the tensor."""
    for hq, hkv, d in HEAD_SHAPES:
        for t_ in tokens:
            if not guard.ok():
                return
            try:
                qkv = randn((1, t_, hq + 2 * hkv, d))
                q = qkv[:, :, :hq]
                k = qkv[:, :, hq:hq + hkv]
                w = 1.0 + randn((d,), std=0.02)
                cache = randn((1, hkv, t_, d))
                kt = k.transpose(1, 2)

                def write():
                    cache[:, :, :t_] = kt
                cases = (("qk_norm", lambda: engine.rms_norm(q, w), hq, "engine.rms_norm on q view"),
                         ("kv_write", write, hkv, "cache[:, :, :S] = k.transpose(1, 2)"))
                for op, fn, heads, impl in cases:
                    tm = bench(fn, target_s=0.01, min_reps=5, max_reps=50)
                    nbytes = 2.0 * 2 * t_ * heads * d
                    row = {"op": op, "impl": impl, "dtype": "bf16", "tokens": t_, "heads": heads,
                           "head_dim": d, "flop": 0.0, "bytes": nbytes}
                    row.update(tm)
                    row["bytes_per_s"] = nbytes / tm["median_s"]
                    writer.write(row)
                del qkv, q, k, cache, kt
            except Exception:
                log_exc(f"attention glue {hq}/{hkv}/{d} t={t_}")
