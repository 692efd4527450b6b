"""Diagnostic (not read by the fitter): why eager TP=2 steps of the reference engine take longer
than their host cost. Two processes (one per GPU), Llama-3.1-8B and Qwen3-32B, full depth, eager
decode b=1 c=2048 and eager prefill 512: per call the CUDA-event time and the host time of the
Python call (no synchronize inside the loop), 12 calls after 3 warm-up calls. Run once with the
default environment and once per variant (each variant in fresh processes):
  avoid_record_streams  TORCH_NCCL_AVOID_RECORD_STREAMS=1 (NCCL's tensors not recorded on the
                        caching allocator; the allocator can reuse their blocks at once)
  no_allreduce          the same steps with the all-reduce skipped (wrong numbers, same kernels
                        otherwise): how much the collectives themselves cost the host
  pinned                each rank's process bound to its own 8 CPU cores (os.sched_setaffinity)
                        before anything starts, as serving engines bind ranks to cores
  pinned_one_thread     pinned, and torch.set_num_threads(1)
  *_again               the same variant in another pair of fresh processes (reproducibility)
Usage: python3 diag_tp2.py --out DIR"""
import argparse
import json
import os
import statistics
import time

from common import set_safe_env

VARIANTS = ("default", "default_again", "pinned", "pinned_one_thread", "pinned_again")


def worker(rank, world, out, port, variant):
    set_safe_env()
    if variant.startswith("pinned"):
        cores = sorted(os.sched_getaffinity(0))
        per = max(1, len(cores) // (2 * world))
        os.sched_setaffinity(0, cores[rank * per:(rank + 1) * per])
    if variant == "avoid_record_streams":
        os.environ["TORCH_NCCL_AVOID_RECORD_STREAMS"] = "1"
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import datetime
    import torch
    import torch.distributed as dist
    import engine
    import models
    if variant == "pinned_one_thread":
        torch.set_num_threads(1)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120),
                            device_id=torch.device("cuda", rank))
    x = torch.ones(1, device="cuda")
    dist.all_reduce(x)
    rows = []
    for shape in (models.LLAMA_8B, models.QWEN3_32B):
        model = engine.RefModel(shape, shape.num_layers, tp=world, rank=rank)
        if variant.startswith("no_allreduce"):
            model._all_reduce = lambda t: t
        for mode, b, n in (("decode", 1, 2048), ("prefill", 1, 512)):
            flat, step = engine.make_step(model, mode, b, n)
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            dist.barrier()
            ev, host = [], []
            for _ in range(12):
                s = torch.cuda.Event(enable_timing=True)
                e = torch.cuda.Event(enable_timing=True)
                t0 = time.perf_counter()
                s.record()
                step()
                e.record()
                host.append(time.perf_counter() - t0)
                ev.append((s, e))
            torch.cuda.synchronize()
            times = [a.elapsed_time(z) / 1e3 for a, z in ev]
            rows.append({"variant": variant, "rank": rank, "model": shape.name, "mode": mode,
                         "batch": b, "n": n, "event_median_s": statistics.median(times),
                         "event_min_s": min(times), "event_max_s": max(times),
                         "host_median_s": statistics.median(host), "host_max_s": max(host),
                         "mem_reserved_bytes": torch.cuda.memory_reserved()})
            print(f"{variant} rank{rank} {shape.name} {mode}: event {statistics.median(times) * 1e3:.1f} ms "
                  f"(min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f}), host "
                  f"{statistics.median(host) * 1e3:.1f} ms", flush=True)
            del flat, step
        del model
        torch.cuda.empty_cache()
    with open(os.path.join(out, f"diag_tp2_{variant}_rank{rank}.json"), "w") as f:
        json.dump(rows, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import torch.multiprocessing as mp
    for i, v in enumerate(VARIANTS):
        mp.spawn(worker, args=(2, a.out, 29600 + 11 * i, v), nprocs=2, join=True)


if __name__ == "__main__":
    main()
