"""Two-GPU sections, one process per GPU (started by run_all through torch.multiprocessing):

nccl.jsonl     NCCL all-reduce (torch.distributed, bf16, sum) over message sizes 4 KiB..256 MiB.
e2e_tp2.jsonl  the reference engine with tensor parallel 2 (see engine.py) for Llama-3.1-8B and
               Qwen3-32B: CUDA-graph decode steps (all-reduces captured in the graph) and eager
               prefill.

Every rank makes the same calls (fixed repetition counts, agreed skips); rank 0 writes rows.
"""

import os

from common import set_safe_env

NCCL_SIZES = [1 << p for p in range(12, 29)]          # 4 KiB .. 256 MiB

TP_DECODE = [(b, c) for c in (512, 2048, 8192) for b in (1, 8, 32, 128)]
TP_PREFILL = [(1, 512), (1, 2048), (1, 8192)]
TP70_DECODE = [(b, c) for c in (512, 2048, 8192) for b in (1, 8, 32)]
TP70_PREFILL = [(1, 512), (1, 2048)]
GRAPH_OPS = 16
TP_MOE_LAYERS = 8
MOE_EXTRA = {"attention_note": "all layers full attention (gpt-oss alternates 128-token sliding "
                               "window; not modelled here)",
             "swiglu": "plain silu(g)*u, no clamp, no biases",
             "moe_tp": "all experts on every rank, each expert's intermediate split over the ranks"}


def _reps_for(size):
    est = 20e-6 + size / 300e9
    return int(min(100, max(10, 0.03 / est)))


def worker(rank, world, out_dir, deadline, smoke, port, budgets, task="all"):
    """task: "nccl", a model name (its host rows and TP=2 engine rows), or "all" (everything in
    one pair of processes, as before 2026-11-30 05:00)."""
    set_safe_env()
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import datetime
    import torch
    import torch.distributed as dist
    from common import Writer, Guard, env_fields, log, log_exc, randn, summarize, free_gpu
    import models
    import sec_e2e

    torch.cuda.set_device(rank)
    try:
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=120),
                                device_id=torch.device("cuda", rank))
    except TypeError:
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=120))
    x = torch.ones(1, device="cuda")
    dist.all_reduce(x)
    torch.cuda.synchronize()
    assert x.item() == world, "all-reduce gave a wrong sum"

    def agree(ok):
        t = torch.tensor([1 if ok else 0], device="cuda", dtype=torch.int32)
        dist.all_reduce(t, op=dist.ReduceOp.MIN)
        return bool(t.item())

    def reduce_min(v):
        t = torch.tensor([int(v)], device="cuda", dtype=torch.int64)
        dist.all_reduce(t, op=dist.ReduceOp.MIN)
        return int(t.item())

    env = env_fields()
    env["world_size"] = world
    try:
        nccl_v = torch.cuda.nccl.version()
        env["nccl"] = ".".join(str(p) for p in nccl_v) if isinstance(nccl_v, tuple) else str(nccl_v)
    except Exception:  # noqa: BLE001
        env["nccl"] = "unknown"
    guard = Guard(deadline)

    if task in ("all", "nccl"):
        _nccl(rank, world, out_dir, smoke, budgets, env, guard, agree)
    if task != "nccl":
        _tp_models(rank, world, out_dir, smoke, budgets, env, guard, agree, reduce_min,
                   None if task == "all" else task)
    try:
        dist.barrier()
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass


def _nccl(rank, world, out_dir, smoke, budgets, env, guard, agree):
    import torch
    import torch.distributed as dist
    from common import Writer, log, log_exc, randn, summarize, free_gpu
    # ---------------- NCCL all-reduce ----------------
    w_nccl = Writer(out_dir, "nccl.jsonl", env) if rank == 0 else None
    guard.start_section("nccl_all_reduce", budgets["nccl"], quiet=rank != 0)
    sizes = [1 << 12, 1 << 26] if smoke else NCCL_SIZES
    for size in sizes:
        if not agree(guard.ok()):
            break
        results = []
        try:
            buf = randn((size // 2,))
            reps = _reps_for(size)
            for _ in range(5):
                dist.all_reduce(buf)
            dist.barrier()
            torch.cuda.synchronize()
            # eager: each call bracketed by events (includes the host's launch cost whenever
            # the GPU outruns the host, as in an eager engine)
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            for i in range(reps):
                starts[i].record()
                dist.all_reduce(buf)
                ends[i].record()
            torch.cuda.synchronize()
            times = sorted(a.elapsed_time(b) / 1e3 for a, b in zip(starts, ends))
            results.append((False, GRAPH_OPS, summarize(times)))
            # in-place sums double the values every call: refill before the graph part
            # (5 + 100 eager calls, then 1 + 6 x 16 graph calls, stay below bf16's max)
            buf.normal_()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                dist.all_reduce(buf)
            torch.cuda.current_stream().wait_stream(side)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                for _ in range(GRAPH_OPS):
                    dist.all_reduce(buf)
            graph.replay()
            torch.cuda.synchronize()
            gtimes = []
            for _ in range(5):
                dist.barrier()
                torch.cuda.synchronize()
                s0 = torch.cuda.Event(enable_timing=True)
                s1 = torch.cuda.Event(enable_timing=True)
                s0.record()
                graph.replay()
                s1.record()
                torch.cuda.synchronize()
                gtimes.append(s0.elapsed_time(s1) / 1e3 / GRAPH_OPS)
            t = summarize(sorted(gtimes))
            t["reps"] = len(gtimes) * GRAPH_OPS
            results.append((True, GRAPH_OPS, t))
            del graph, buf
        except Exception:
            log_exc(f"rank {rank} all_reduce {size}")
        if w_nccl is None:
            continue
        for in_graph, ops, t in results:
            alg = size / t["median_s"]
            row = {"op": "all_reduce", "impl": "torch.distributed/nccl", "dtype": "bf16",
                   "reduce_op": "sum", "size_bytes": size, "world_size": world,
                   "cuda_graph": in_graph,
                   "ops_per_replay": ops if in_graph else None,
                   "flop": float(size // 2 * (world - 1)), "bytes": float(size),
                   "algbw_bytes_per_s": alg, "busbw_bytes_per_s": alg * 2 * (world - 1) / world}
            row.update(t)
            w_nccl.write(row)
            log(f"  all_reduce {size:>10d} B graph={int(in_graph)} {t['median_s'] * 1e6:9.1f} us"
                f"  busbw {row['busbw_bytes_per_s'] / 1e9:7.1f} GB/s")
    if w_nccl is not None:
        w_nccl.close()
    free_gpu()



def _tp_models(rank, world, out_dir, smoke, budgets, env, guard, agree, reduce_min, only):
    import torch
    from common import Writer, log, log_exc
    import models
    import sec_e2e
    from host_and_sustained import host_times, add_kernel_counts, host_cases_for
    # ---------------- TP=2 reference engine ----------------
    w_e2e = Writer(out_dir, "e2e_tp2.jsonl", env) if rank == 0 else None
    if smoke:
        plan = [(models.LLAMA_8B, 2, [(1, 512), (8, 512)], [(1, 512)], [(1, 512)])]
    else:
        plan = [(models.LLAMA_8B, models.LLAMA_8B.num_layers, TP_DECODE, TP_PREFILL,
                 [(1, 2048)]),
                (models.QWEN3_32B, models.QWEN3_32B.num_layers, TP_DECODE, TP_PREFILL,
                 [(1, 2048)]),
                # 70B in bf16 (141 GB) fits only when split: 70.6 GB of weights per GPU
                (models.LLAMA_70B, models.LLAMA_70B.num_layers, TP70_DECODE, TP70_PREFILL, []),
                # the 8-layer gpt-oss-120b-like MoE stack, experts' intermediate split over ranks
                (models.GPT_OSS_120B, TP_MOE_LAYERS, TP_DECODE, TP_PREFILL, [(1, 2048)])]
    eager_only = only is not None and only.startswith("eager:")
    if eager_only:   # eager_repeat.py: the host-sensitive eager points only, no host rows
        only = only[len("eager:"):]
    for shape, layers, dgrid, pgrid, eager in plan:
        if only is not None and shape.name != only:
            continue
        if eager_only:
            dgrid = []
            pgrid = [p for p in pgrid if p[0] * p[1] <= 2048]
        if not agree(guard.left() > 20):
            break
        guard.start_section(f"e2e_tp2/{shape.name}", budgets["tp2_model"], quiet=rank != 0)
        host = []
        try:
            if not eager_only:
                host = host_times(tp=world, rank=rank, cases=host_cases_for(shape.name),
                                  where="multi_gpu.py")
        except Exception:
            log_exc(f"rank {rank} host times tp2 {shape.name}")
        torch.cuda.empty_cache()
        try:
            sec_e2e.run_model(w_e2e, guard, shape, layers, tp=world, rank=rank,
                              decode_grid=dgrid, prefill_grid=pgrid, eager_points=eager,
                              agree=agree, reduce_min=reduce_min,
                              fixed_reps={"decode": 15, "prefill": 3},
                              extra=MOE_EXTRA if shape.num_experts else None)
        except Exception:
            log_exc(f"rank {rank} e2e tp2 {shape.name}")
        if host:   # the profiler last: it slows the host for the rest of the process
            try:
                add_kernel_counts(host, tp=world, rank=rank)
                if rank == 0:
                    hw = Writer(out_dir, "host_tp2.jsonl", env)
                    for r in host:
                        hw.write(r)
                        log(f"host tp{world} {r['model']} {r['mode']}: "
                            f"{r['per_layer_s'] * 1e6:.1f} us/layer, {r['kernels_per_layer']:.0f}"
                            f" kernels, {r['per_kernel_s'] * 1e6:.1f} us/kernel")
                    hw.close()
            except Exception:
                log_exc(f"rank {rank} host kernel counts tp2 {shape.name}")
    if w_e2e is not None:
        w_e2e.close()


def main():
    """Standalone: python3 multi_gpu.py --out DIR --task NAME (one task in a fresh pair)."""
    import argparse
    import random
    import time
    import torch.multiprocessing as mp
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--task", required=True, help="nccl or a model name")
    ap.add_argument("--budget-s", type=float, default=120.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    deadline = time.time() + a.budget_s
    mp.spawn(worker, args=(2, a.out, deadline, False, 29500 + random.randint(0, 2000),
                           {"nccl": 30, "tp2_model": a.budget_s}, a.task), nprocs=2, join=True)


if __name__ == "__main__":
    main()
