"""Held-out end-to-end steps at long contexts: decode at 16k-128k tokens, prefill of 32k.

The calibration grids stop at 32,768 tokens of context (attention kernels) and 8,192 (end-to-end
decode steps), while agentic coding runs at 50,000-130,000. These rows are not fitted: they sit in
calibration/data/h200/long_context/, outside the folders `tycoon fit` and `tycoon validate` read
by default, and `tycoon validate --hardware h200 --data calibration/data/h200/long_context`
predicts them (docs/calibration.md, Calibration).

Each model runs in a process of its own (as e2e_proc.py does): Llama-3.1-8B with all 32 layers
(dense) and GPT-OSS-120B with 8 of its 36 layers (MoE; all layers full attention, as in
e2e_proc.py). Decode steps in CUDA graphs at batch 1, 4 and 16 over contexts 16k, 32k, 64k and
128k where the KV cache fits; one eager prefill of 32,768 tokens.

usage: python3 long_context.py --out DIR [--model NAME] [--budget-s S]
"""

import argparse
import os
import subprocess
import sys
import time

from common import set_safe_env, log, env_fields, Writer, Guard

set_safe_env()

CONTEXTS = [16384, 32768, 65536, 131072]
BATCHES = [1, 4, 16]
PREFILL = [(1, 32768)]
MAX_POS = 131072 + 8


def run_one(out, name, budget_s):
    import models
    import sec_e2e
    from e2e_proc import MOE_E2E_LAYERS, MOE_EXTRA
    by_name = {m.name: m for m in models.ALL}
    shape = by_name[name]
    layers = MOE_E2E_LAYERS if shape.num_experts else shape.num_layers
    extra = dict(MOE_EXTRA) if shape.num_experts else {}
    extra["held_out"] = "long-context validation (long_context.py); not fitted"
    guard = Guard(time.time() + budget_s)
    w = Writer(out, "e2e.jsonl", env_fields())
    guard.start_section(f"long/{name}", budget_s)
    grid = [(b, c) for c in CONTEXTS for b in BATCHES]
    sec_e2e.run_model(w, guard, shape, layers, decode_grid=grid, prefill_grid=PREFILL, extra=extra,
                      max_pos=MAX_POS)
    w.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--model")
    ap.add_argument("--budget-s", type=float, default=200.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.model:
        run_one(a.out, a.model, a.budget_s)
        return 0
    rc = 0
    for name in ("llama-3.1-8b", "gpt-oss-120b"):
        t0 = time.time()
        r = subprocess.call([sys.executable, os.path.abspath(__file__), "--out", a.out, "--model", name,
                             "--budget-s", str(a.budget_s)])
        log(f"long-context {name}: exit {r} in {time.time() - t0:.0f} s")
        rc = rc or r
    return rc


if __name__ == "__main__":
    sys.exit(main())
