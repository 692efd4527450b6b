"""Host-sensitive eager rows measured again in several fresh processes (TP=1) and fresh pairs of
processes (TP=2), one model per process: eager decode, and prefills small enough that the
Python host issuing the kernels may set their time (<= 512 tokens at TP=1, <= 2048 at TP=2).

Why: an eager step that the host binds measures how fast Python runs in that process, and on
the lent machine that varied by up to 2x between fresh processes
(calibration/data/h200x2/diagnostics/diag_tp2.json). One process per point is a sample of one;
aggregate_repeats.py takes the median over the processes.

usage: python3 eager_repeat.py --out DIR [--repeats 3]
Writes DIR/tp1_r<i>/e2e.jsonl and DIR/tp2_r<i>/e2e_tp2.jsonl.
"""

import argparse
import os
import random
import subprocess
import sys
import time

from common import set_safe_env, log

TP1_MODELS = ("llama-3.1-8b", "qwen3-32b", "gpt-oss-120b")
TP2_MODELS = ("llama-3.1-8b", "qwen3-32b", "llama-3.1-70b", "gpt-oss-120b")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-tp2", action="store_true")
    a = ap.parse_args()
    set_safe_env()
    t0 = time.time()
    for r in range(a.repeats):
        d = os.path.join(a.out, f"tp1_r{r}")
        os.makedirs(d, exist_ok=True)
        for m in TP1_MODELS:
            rc = subprocess.run([sys.executable, "e2e_proc.py", "--out", d, "--model", m,
                                 "--eager-only", "--budget-s", "60"], timeout=180).returncode
            log(f"tp1 repeat {r} {m}: exit {rc} ({time.time() - t0:.0f} s)")
    if a.skip_tp2:
        return 0
    import torch.multiprocessing as mp
    import multi_gpu
    for r in range(a.repeats):
        d = os.path.join(a.out, f"tp2_r{r}")
        os.makedirs(d, exist_ok=True)
        for m in TP2_MODELS:
            mp.spawn(multi_gpu.worker,
                     args=(2, d, time.time() + 120, False, 29500 + random.randint(0, 3000),
                           {"nccl": 30, "tp2_model": 110}, "eager:" + m),
                     nprocs=2, join=True)
            log(f"tp2 repeat {r} {m} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
