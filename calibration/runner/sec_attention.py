"""Section: attention through F.scaled_dot_product_attention, bf16.

prefill: causal, batch 1, q (1, Hq, S, D), k/v (1, Hkv, S, D), flash backend forced
         (falls back to torch's own choice, recorded as backend="auto", if flash refuses);
         then the same grid again with torch's own choice (backend="auto").
decode:  one query token per sequence, q (b, Hq, 1, D) against a KV cache (b, Hkv, c, D) of
         uniform context c, enable_gqa=True, no mask, torch's own backend choice ("auto"),
         which is what the reference engine uses. A probe row per forced backend at one shape
         shows which kernel "auto" matches.
"""

import contextlib

import torch
import torch.nn.functional as F

from common import bench, log, log_exc, randn, free_gpu

try:
    from torch.nn.attention import sdpa_kernel, SDPBackend
except Exception:  # noqa: BLE001
    sdpa_kernel = None
    SDPBackend = None

PREFILL_CFGS = [(64, 64, 8), (64, 32, 8), (128, 64, 8), (128, 32, 8)]   # (head_dim, Hq, Hkv)
DECODE_CFGS = [(128, 32, 8), (128, 64, 8), (64, 64, 8)]
SEQS = [128, 256, 512, 1024, 2048, 4096, 8192, 16384]
DEC_BATCH = [1, 4, 16, 64, 256]
DEC_CTX = [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
DEC_KV_LIMIT_BYTES = 36e9


def backend_ctx(name):
    if name == "auto" or sdpa_kernel is None:
        return contextlib.nullcontext()
    b = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
         "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}[name]
    return sdpa_kernel([b])


def sdpa(q, k, v, causal, backend):
    with backend_ctx(backend):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)


_PREFILL_BACKEND = None


def prefill_backend():
    """'flash' if the forced flash backend accepts causal GQA prefill, else 'auto'."""
    global _PREFILL_BACKEND
    if _PREFILL_BACKEND is None:
        if sdpa_kernel is None:
            _PREFILL_BACKEND = "auto"
            return _PREFILL_BACKEND
        try:
            q = randn((1, 32, 256, 128))
            k = randn((1, 8, 256, 128))
            sdpa(q, k, k, True, "flash")
            torch.cuda.synchronize()
            _PREFILL_BACKEND = "flash"
        except Exception:
            log_exc("flash prefill probe; using auto")
            _PREFILL_BACKEND = "auto"
    return _PREFILL_BACKEND


def prefill_flop(b, hq, d, s):
    return 4.0 * b * hq * d * s * (s + 1) / 2.0


def decode_flop(b, hq, d, c):
    return 4.0 * b * hq * d * c


def run(writer, guard, smoke=False):
    summary = {}
    be = prefill_backend()
    log(f"attention prefill backend: {be}")
    # ---- decode first (the serving hot path) ----
    cfgs = DECODE_CFGS[:1] if smoke else DECODE_CFGS
    batches = [1, 16] if smoke else DEC_BATCH
    ctxs = [128, 2048] if smoke else DEC_CTX
    for d, hq, hkv in cfgs:
        max_elems = max(b * hkv * c * d for b in batches for c in ctxs
                        if 2 * 2 * b * hkv * c * d <= DEC_KV_LIMIT_BYTES)
        try:
            kf = randn((max_elems,))
            vf = randn((max_elems,))
        except Exception:
            log_exc("decode KV alloc")
            continue
        for b in batches:
            for c in ctxs:
                kv_bytes = 2.0 * 2 * b * hkv * c * d
                if kv_bytes > DEC_KV_LIMIT_BYTES:
                    continue
                if not guard.ok():
                    break
                n = b * hkv * c * d
                k = kf[:n].view(b, hkv, c, d)
                v = vf[:n].view(b, hkv, c, d)
                q = randn((b, hq, 1, d))
                try:
                    t = bench(lambda: sdpa(q, k, v, False, "auto"), target_s=0.015,
                              min_reps=5, max_reps=50)
                except Exception:
                    log_exc(f"attn decode b={b} c={c} d={d}")
                    continue
                flop = decode_flop(b, hq, d, c)
                row = {"op": "attn_decode", "backend": "auto", "dtype": "bf16", "batch": b,
                       "context": c, "num_q_heads": hq, "num_kv_heads": hkv, "head_dim": d,
                       "gqa_ratio": hq // hkv, "causal": False, "flop": flop,
                       "kv_bytes": kv_bytes, "bytes": kv_bytes + 2.0 * 2 * b * hq * d}
                row.update(t)
                row["bytes_per_s"] = row["bytes"] / t["median_s"]
                writer.write(row)
                summary[("decode", d, hq, b, c)] = t["median_s"]
        # backend probe at one mid shape
        b, c = (16, 2048) if smoke else (16, 4096)
        if d == 128 and hq == 32 and b * hkv * c * d <= max_elems:
            n = b * hkv * c * d
            k = kf[:n].view(b, hkv, c, d)
            v = vf[:n].view(b, hkv, c, d)
            q = randn((b, hq, 1, d))
            for name in ("flash", "efficient", "cudnn", "math"):
                if not guard.ok():
                    break
                try:
                    t = bench(lambda: sdpa(q, k, v, False, name), target_s=0.01,
                              min_reps=5, max_reps=20)
                except Exception as ex:  # noqa: BLE001
                    log(f"decode backend probe {name}: refused ({str(ex).splitlines()[0][:120]})")
                    continue
                kv_bytes = 2.0 * 2 * b * hkv * c * d
                row = {"op": "attn_decode_probe", "backend": name, "dtype": "bf16", "batch": b,
                       "context": c, "num_q_heads": hq, "num_kv_heads": hkv, "head_dim": d,
                       "gqa_ratio": hq // hkv, "causal": False,
                       "flop": decode_flop(b, hq, d, c), "kv_bytes": kv_bytes,
                       "bytes": kv_bytes + 2.0 * 2 * b * hq * d}
                row.update(t)
                writer.write(row)
                log(f"decode backend probe {name}: {t['median_s'] * 1e6:.1f} us")
        del kf, vf
        free_gpu()
    # ---- prefill: flash forced (what the brief and the engine use), then torch's own pick ----
    cfgs = PREFILL_CFGS[2:3] if smoke else PREFILL_CFGS
    seqs = [128, 2048] if smoke else SEQS
    for be_run in ([be, "auto"] if be == "flash" else [be]):
        for d, hq, hkv in cfgs:
            for s in seqs:
                if not guard.ok():
                    break
                q = randn((1, hq, s, d))
                k = randn((1, hkv, s, d))
                v = randn((1, hkv, s, d))
                try:
                    t = bench(lambda: sdpa(q, k, v, True, be_run), target_s=0.02, min_reps=5,
                              max_reps=50)
                except Exception:
                    log_exc(f"attn prefill s={s} d={d} backend={be_run}")
                    continue
                flop = prefill_flop(1, hq, d, s)
                nbytes = 2.0 * s * d * (2 * hq + 2 * hkv)
                row = {"op": "attn_prefill", "backend": be_run, "dtype": "bf16", "batch": 1,
                       "seq_len": s, "num_q_heads": hq, "num_kv_heads": hkv, "head_dim": d,
                       "gqa_ratio": hq // hkv, "causal": True, "flop": flop, "bytes": nbytes}
                row.update(t)
                row["flop_per_s"] = flop / t["median_s"]
                writer.write(row)
                summary[("prefill", be_run, d, hq, s)] = t["median_s"]
    free_gpu()
    return summary
