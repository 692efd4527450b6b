"""Section: end-to-end reference engine timings (decode steps in CUDA graphs, prefill eager).

Used by run_all (tp=1) and by multi_gpu's workers (tp=2, every rank calls the same points;
rank 0 writes the rows).
"""

import time

import torch

from common import bench, log, log_exc, free_gpu, fmt_s
from engine import RefModel

DECODE_BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256]
DECODE_CTX = [128, 512, 2048, 8192]
PREFILL = [(1, 128), (1, 256), (1, 512), (1, 1024), (1, 2048), (1, 4096), (1, 8192),
           (4, 512), (4, 2048), (1, 16384)]
ACT_RESERVE_BYTES = 10 * (1 << 30)


def _agree_default(ok):
    return ok


def _same(x):
    return x


def time_decode(model, flat, b, c, use_graph, fixed_reps=None):
    ids = torch.randint(0, model.s.vocab, (b,), device="cuda")
    kv = model.kv_view(flat, b, c)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            model.decode(ids, kv, c)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = None
    if use_graph:
        try:
            graph = torch.cuda.CUDAGraph()
            # thread_local: other threads (NCCL's watchdog) may keep querying events meanwhile
            with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                model.decode(ids, kv, c)
            torch.cuda.synchronize()
        except Exception:
            log_exc(f"graph capture {model.s.name} b={b} c={c}; timing eager")
            graph = None
    if graph is not None:
        fn = graph.replay
    else:
        def fn():
            return model.decode(ids, kv, c)
    used = graph is not None
    t = bench(fn, target_s=0.25, min_reps=5, max_reps=30, warmup=2, flush_l2=False,
              fixed_reps=fixed_reps)
    del graph, fn
    return t, used


def time_prefill(model, flat, B, S, fixed_reps=None):
    ids = torch.randint(0, model.s.vocab, (B, S), device="cuda")
    kv = model.kv_view(flat, B, S)
    return bench(lambda: model.prefill(ids, kv), target_s=0.6, min_reps=3, max_reps=10,
                 warmup=1, flush_l2=False, fixed_reps=fixed_reps)


def run_model(writer, guard, shape, num_layers, *, tp=1, rank=0, decode_grid, prefill_grid,
              eager_points=(), agree=_agree_default, reduce_min=_same, fixed_reps=None,
              use_graph=True, extra=None, max_pos=32768):
    """Build one model, time its grids, free it. Returns {(mode, b, c_or_s, graph): median_s}.

    fixed_reps: None, or {"decode": n, "prefill": m} so that every rank makes the same calls.
    """
    res = {}
    fr = fixed_reps or {}
    t_build = time.time()
    try:
        model = RefModel(shape, num_layers, tp=tp, rank=rank, max_pos=max_pos)
    except Exception:
        log_exc(f"build {shape.name} L={num_layers} tp={tp}")
        free_gpu()
        return res
    torch.cuda.synchronize()
    fields = model.row_fields()
    if extra:
        fields.update(extra)
    log(f"built {shape.name} L={num_layers} tp={tp}: weights {model.weight_bytes() / 1e9:.1f} GB/gpu"
        f" in {time.time() - t_build:.1f} s")
    per_tok = model.kv_bytes_per_token()
    # Two phases, each with a KV pool sized to its own points: the eager steps (eager decode and
    # prefill) first, with most of the memory free, then the CUDA-graph decode grid. Eager steps
    # allocate activations through PyTorch's caching allocator; timed next to a KV pool that
    # fills the GPU (and after graph captures) they paid for cudaMalloc/cudaFree churn: Qwen3-32B
    # eager decode measured 44.9 ms that way against 25.2 ms in a fresh process (diagnostics/).
    eager = [("decode", b, c, False) for b, c in eager_points]
    eager += [("prefill", b, s, False) for b, s in prefill_grid]
    graphed = [("decode", b, c, True) for b, c in decode_grid]
    state = {"graph_ok": use_graph, "checked": False}
    for phase in (eager, graphed):
        if phase:
            _run_phase(model, shape, fields, phase, per_tok, state, writer, guard, tp, rank, agree,
                       reduce_min, fr, res)
    del model
    free_gpu()
    return res


def _run_phase(model, shape, fields, points, per_tok, state, writer, guard, tp, rank, agree,
               reduce_min, fr, res):
    # KV pool: as much as these points need, within what is free minus an activation reserve.
    need_tok = max([b * n for _, b, n, _ in points] + [1])
    free = torch.cuda.mem_get_info()[0]
    cap_tok = max(0, (free - ACT_RESERVE_BYTES) // per_tok)
    pool_tok = int(reduce_min(int(min(need_tok, cap_tok))))   # ranks must agree on the skips
    try:
        flat = torch.empty(pool_tok * per_tok // 2, dtype=torch.bfloat16, device="cuda")
        flat.normal_(0.0, 1.0)
    except Exception:
        log_exc("KV pool alloc")
        free_gpu()
        return
    log(f"KV pool {pool_tok} tokens ({pool_tok * per_tok / 1e9:.1f} GB)")
    if not state["checked"]:
        state["checked"] = True
        try:
            s_chk = int(min(128, pool_tok))
            ok, std = model.final_hidden_finite(
                torch.randint(0, shape.vocab, (1, s_chk), device="cuda"),
                model.kv_view(flat, 1, s_chk))
            log(f"sanity prefill {s_chk}: finite={ok} final hidden std={std:.3g}")
        except Exception:
            log_exc("sanity prefill")

    for mode, b, n, want_graph in points:
        if b * n > pool_tok:
            log(f"skip {shape.name} {mode} b={b} n={n}: KV {b * n * per_tok / 1e9:.0f} GB > pool")
            continue
        if not agree(guard.ok()):
            break
        try:
            if mode == "decode":
                t, used = time_decode(model, flat, b, n, want_graph and state["graph_ok"],
                                      fr.get("decode"))
                if want_graph and state["graph_ok"] and not used:
                    state["graph_ok"] = False   # capture failed once: do not retry for this model
                flop = model.flop_decode(b, n)
                nbytes = model.bytes_min(b, b * n)
                row = {"op": "e2e_decode", "mode": "decode", "batch": b, "context": n,
                       "prompt_len": None, "cuda_graph": bool(used)}
                tokens = b
            else:
                t = time_prefill(model, flat, b, n, fr.get("prefill"))
                flop = model.flop_prefill(b, n)
                nbytes = model.bytes_min(b * n, b * n)
                row = {"op": "e2e_prefill", "mode": "prefill", "batch": b, "context": None,
                       "prompt_len": n, "cuda_graph": False}
                tokens = b * n
        except Exception:
            log_exc(f"{shape.name} {mode} b={b} n={n}")
            free_gpu()
            continue
        full = dict(fields)
        full.update(row)
        full.update({"flop": flop, "bytes": nbytes, "kv_pool_tokens": pool_tok})
        full.update(t)
        full["tokens_per_s"] = tokens / t["median_s"]
        if writer is not None:
            writer.write(full)
        res[(mode, b, n, row["cuda_graph"])] = t["median_s"]
        if rank == 0:
            log(f"  {shape.name} tp{tp} {mode:7s} b={b:<4d} n={n:<6d} graph={int(row['cuda_graph'])}"
                f" {fmt_s(t['median_s'])} (reps {t['reps']})")
        free_gpu()
    del flat
    free_gpu()

