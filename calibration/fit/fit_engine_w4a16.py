#!/usr/bin/env python3
"""An engine's alternative W4A16 expert kernel on Hopper, fitted to published serving measurements.

    calibration/fit/fit_engine_w4a16.py [--engine vllm] [--kernel marlin] [--tycoon build/tycoon]
        [--reserved ../shared/validation/reserved_serving_keys.json] [--check] [--jobs 2]

GPT-OSS-120B ships MXFP4 experts. A chip without 4-bit math (H100, H200) runs them through a
kernel that dequantises the weights and multiplies in bf16 (W4A16). vLLM's default on Hopper is
OpenAI's Triton matmul_ogs kernel, which the chip's grouped-GEMM curves already price (vLLM's own
published timings of it agree with the H200's measured curve: docs/calibration.md, "The engines'
own MoE kernels"). InferenceX's published H100 and H200 runs told vLLM to use Marlin instead
(VLLM_MXFP4_USE_MARLIN=1 in benchmarks/single_node/gptoss_fp4_h100.sh and _h200.sh, SemiAnalysisAI/
InferenceX 79a42e20a8, the scripts on the points' measurement date; added by 4e52ed4c, 2026-01-02;
each point's run_config_source). Marlin could not be run here. What the perf
model needs is two numbers for it (Engine::w4a16_moe_kernels): the share of the curves' compute
efficiency it reaches (large batches, prefill) and the share of their weight-streaming efficiency
(small batches, decode).

This fits both to the published mean TTFTs and TPOTs of the points run with the kernel
(calibration/published/serving_points.json and serving_points_moe.json whose mxfp4_backend is
--kernel: NVIDIA aiconfigurator's silicon sample): every third point by id is held out and never
enters the fit; the fit minimises the squared log errors of TTFT and TPOT over the rest by
coordinate descent from (1, 1) over two 1/16-octave grids (compute 0.25-1, memory 0.5-2), each
coordinate swept whole in turn until neither moves. It prints the errors of both splits with the
engine's default kernel (no --mxfp4-backend) and with the fitted one, as markdown.

Never fits on a configuration reserved for validation: every point is checked against
--reserved (exit 2 naming the point when one matches, or when the file cannot be read).

--reserved-only: checks every point of the points files (POINT_FILES) against --reserved and fits nothing (exit 2
naming the first reserved one).

--check: instead of the descent, runs the engine file's shares and their four grid neighbours on
the fit split and fails (exit 1) unless the file's shares are the best of the five.
"""

import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_published  # noqa: E402  (the reserved-key check and the data root copy)

ROOT = Path(__file__).resolve().parents[2]
POINT_FILES = ["calibration/published/serving_points.json", "calibration/published/serving_points_moe.json",
               "calibration/published/serving_points_minimax.json"]
CHIPS = ("h100", "h200")  # no 4-bit math: the W4A16 path
COMPUTE_GRID = [round(2 ** (k / 16), 4) for k in range(-32, 1)]  # 0.25 .. 1
MEMORY_GRID = [round(2 ** (k / 16), 4) for k in range(-16, 17)]  # 0.5 .. 2


def points(engine, kernel):
    """The points run with the engine's `kernel` (engine None: every point), split."""
    rows = []
    for f in POINT_FILES:
        try:
            doc = json.loads((ROOT / f).read_text())
            listed = doc["points"]
            for i, p in enumerate(listed):
                for field in ("id", "engine", "hardware", "model", "precision", "tp", "isl", "osl", "concurrency",
                              "published"):
                    if field not in p:
                        raise fit_published.InputError(f"{f}: /points/{i}/{field}: missing")
                if not isinstance(p.get("ep", 1), int):
                    raise fit_published.InputError(f"{f}: /points/{i}/ep: an integer is required")
                if "mxfp4_backend" in p and not isinstance(p["mxfp4_backend"], str):
                    raise fit_published.InputError(f"{f}: /points/{i}/mxfp4_backend: a kernel name is required")
                # A run's own settings (benchmark_args passes them on): whole numbers, a number, a name.
                for field in ("spec_tokens", "max_num_seqs", "recv_interval", "warmup_requests", "num_requests",
                              "max_num_batched_tokens", "batch_wait_iters"):
                    v = p.get(field, 0)
                    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                        raise fit_published.InputError(f"{f}: /points/{i}/{field}: a whole number >= 0 is required")
                if not isinstance(p.get("async_scheduling", False), bool):
                    raise fit_published.InputError(f"{f}: /points/{i}/async_scheduling: true or false is required")
                a = p.get("acceptance", 1.0)
                if not isinstance(a, (int, float)) or isinstance(a, bool) or not 1.0 <= a <= 65.0:
                    raise fit_published.InputError(f"{f}: /points/{i}/acceptance: a number in [1, 65] is required")
                if "spec_method" in p and p["spec_method"] not in ("eagle3", "eagle", "mtp"):
                    raise fit_published.InputError(f"{f}: /points/{i}/spec_method: one of eagle3, eagle, mtp")
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            raise fit_published.InputError(f"{f}: cannot read the points: {e}")
        for p in listed:
            if engine is None or (p["engine"] == engine and p["hardware"] in CHIPS
                                  and p.get("mxfp4_backend") == kernel):
                rows.append(dict(p, file=f))
    rows.sort(key=lambda p: p["id"])
    for i, p in enumerate(rows):
        p["split"] = "held-out" if i % 3 == 2 else "fit"
    return rows


def reserved_view(p):
    """The point in the reserved keys' field names (fit_published.refuse_reserved)."""
    return {"id": p["id"], "gpu": p["hardware"], "engine": p["engine"], "model": p["model"],
            "precision": p["precision"], "tp": p["tp"], "ep": p.get("ep", 1), "adp": 1, "isl": p["isl"],
            "osl": p["osl"], "concurrency": p["concurrency"],
            **({"published_model": p["published_model"]} if "published_model" in p else {})}


class EngineRoot:
    """A copy of the data root (symlinks) whose engine file carries candidate values (kernel shares, a latency)."""

    def __init__(self, engine, kernel, prefix="tycoon-w4a16-"):
        self.dir = tempfile.TemporaryDirectory(prefix=prefix)
        self.path = Path(self.dir.name)
        self.engine = engine
        self.kernel = kernel
        for d in ("models", "scenarios"):
            (self.path / d).symlink_to(ROOT / d)
        (self.path / "hardware_db").mkdir()
        for f in (ROOT / "hardware_db").iterdir():
            if f.name != "engines":
                (self.path / "hardware_db" / f.name).symlink_to(f)
        (self.path / "hardware_db" / "engines").mkdir()
        for f in (ROOT / "hardware_db" / "engines").iterdir():
            if f.name != f"{engine}.json":
                (self.path / "hardware_db" / "engines" / f.name).symlink_to(f)
        self.base = json.loads((ROOT / "hardware_db" / "engines" / f"{engine}.json").read_text())

    def file_shares(self):
        k = self.base.get("w4a16_moe_kernels", {}).get(self.kernel)
        return None if k is None else (k["compute_share"], k["memory_share"])

    def set(self, shares):
        doc = json.loads(json.dumps(self.base))
        kernel = doc.setdefault("w4a16_moe_kernels", {}).setdefault(self.kernel, {"vendors": ["nvidia"]})
        kernel.update(compute_share=shares[0], memory_share=shares[1])
        doc.setdefault("sources", {})["w4a16_moe_kernels"] = "candidate of fit_engine_w4a16.py"
        self.write(doc)

    def write(self, doc):
        """Makes `doc` the copy's card of the engine (a file of its own: the project's card is a link
        no write goes through)."""
        (self.path / "hardware_db" / "engines" / f"{self.engine}.json").write_text(json.dumps(doc))


def benchmark_args(tycoon, p, with_kernel=True):
    """`tycoon benchmark` for one published point, run as scripts/fidelity_published.sh runs it: seed 1,
    the client's defaults unless the point says how its client differed, no speculative decoding
    unless its run had it, and the engine settings the point's source states (expert parallelism,
    KV precision, expert activations, token budget, sequences, batch waiting, SGLang's receive
    interval, vLLM's asynchronous scheduling, MXFP4 kernel, MTP:
    run_config_source).
    with_kernel False: the engine's default MXFP4 kernel whatever the point says."""
    args = [tycoon, "benchmark", "--hardware", p["hardware"], "--model", p["model"], "--engine", p["engine"],
            "--precision", p["precision"], "--tp", str(p["tp"]), "--spec-tokens", str(p.get("spec_tokens", 0)),
            "--workload", "random",
            "--isl", str(p["isl"]), "--osl", str(p["osl"]), "--concurrency", str(p["concurrency"]), "--seed", "1",
            "--json"]
    if p.get("ep", 1) != 1:
        args += ["--ep", str(p["ep"])]
    for field, flag in (("kv_dtype", "--kv-dtype"), ("expert_activation", "--expert-activation"),
                        ("max_num_batched_tokens", "--max-num-batched-tokens"), ("batch_wait_iters", "--batch-wait-iters"),
                        ("batch_wait_tokens_ratio", "--batch-wait-tokens-ratio"), ("max_num_seqs", "--max-num-seqs"),
                        ("recv_interval", "--scheduler-recv-interval"),
                        ("spec_method", "--spec-method"), ("acceptance", "--acceptance"),
                        ("warmup_requests", "--warmup-requests"), ("num_requests", "--num-requests")):
        if p.get(field):
            args += [flag, str(p[field])]
    if p.get("async_scheduling"):
        args += ["--async-scheduling"]
    if with_kernel and p.get("mxfp4_backend"):
        args += ["--mxfp4-backend", p["mxfp4_backend"]]
    return args


def simulate(tycoon, data_root, p, with_kernel):
    """The point's mean TTFT and TPOT (ms) on the data root `data_root`."""
    r = subprocess.run(benchmark_args(tycoon, p, with_kernel), capture_output=True, text=True,
                       env=dict(os.environ, TYCOON_DATA=str(data_root)))
    if r.returncode != 0:
        raise RuntimeError(f"{p['id']}: tycoon benchmark failed: {r.stderr.strip()}")
    s = json.loads(r.stdout)
    return s["ttft_ms"]["mean"], s["tpot_ms"]["mean"]


def run_all(tycoon, root, shares, rows, jobs):
    """Every row with the kernel at `shares`; shares None: the engine's default kernel."""
    if shares is not None:
        root.set(shares)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        return list(ex.map(lambda p: simulate(tycoon, root.path, p, shares is not None), rows))


def loss(rows, sims):
    # TTFT and TPOT alike: a slower expert GEMM lengthens the prefill (TTFT) and every decode step
    # that shares its batch with a prefill chunk (TPOT).
    return sum(math.log(s[0] / p["published"]["ttft_ms"]) ** 2 + math.log(s[1] / p["published"]["tpot_ms"]) ** 2
               for p, s in zip(rows, sims))


def errors(rows, sims, metric):
    i, key = (0, "ttft_ms") if metric == "ttft" else (1, "tpot_ms")
    return [100.0 * (s[i] - p["published"][key]) / p["published"][key] for p, s in zip(rows, sims)]


def summary(rows, sims):
    out = []
    for metric in ("ttft", "tpot"):
        e = errors(rows, sims, metric)
        out.append(f"{metric.upper()} median {statistics.median(e):+.1f}%, median |error| "
                   f"{statistics.median(abs(x) for x in e):.1f}%")
    return "; ".join(out)


def descend(tycoon, root, fit, jobs):
    """Coordinate descent from (1, 1): each share swept over its whole grid in turn."""
    cache = {}

    def cost(shares):
        if shares not in cache:
            cache[shares] = loss(fit, run_all(tycoon, root, shares, fit, jobs))
            print(f"  compute {shares[0]:.4f}, memory {shares[1]:.4f}: loss {cache[shares]:.4f}", file=sys.stderr)
        return cache[shares]

    shares = (1.0, 1.0)
    for _ in range(8):
        c = min(COMPUTE_GRID, key=lambda x: cost((x, shares[1])))
        m = min(MEMORY_GRID, key=lambda x: cost((c, x)))
        if (c, m) == shares:
            return shares, cost(shares)
        shares = (c, m)
    raise RuntimeError(f"coordinate descent did not settle in 8 sweeps (last: {shares})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="vllm")
    ap.add_argument("--kernel", default="marlin")
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--reserved", default=str(ROOT.parent / "shared" / "validation" / "reserved_serving_keys.json"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--reserved-only", action="store_true",
                    help="check that no point of the points files is a reserved configuration, fit nothing")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    try:
        rows = points(None if a.reserved_only else a.engine, a.kernel)
        if a.reserved_only:
            fit_published.refuse_reserved([reserved_view(p) for p in rows], a.reserved)
            print(f"{', '.join(POINT_FILES)}: {len(rows)} points, none reserved")
            return 0
    except fit_published.InputError as e:
        print(f"fit_engine_w4a16.py: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"fit_engine_w4a16.py: no point of {a.engine} on {', '.join(CHIPS)} run with {a.kernel}", file=sys.stderr)
        return 2
    try:
        fit_published.refuse_reserved([reserved_view(p) for p in rows], a.reserved)
    except fit_published.InputError as e:
        print(f"fit_engine_w4a16.py: {e}", file=sys.stderr)
        return 2
    fit = [p for p in rows if p["split"] == "fit"]
    held = [p for p in rows if p["split"] == "held-out"]
    root = EngineRoot(a.engine, a.kernel)
    if a.check:
        value = root.file_shares()
        if value is None or value[0] not in COMPUTE_GRID or value[1] not in MEMORY_GRID:
            print(f"fit_engine_w4a16.py: {a.engine}'s w4a16_moe_kernels.{a.kernel} {value} is not on the grids")
            return 1
        i, j = COMPUTE_GRID.index(value[0]), MEMORY_GRID.index(value[1])
        candidates = {value}
        for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= i + di < len(COMPUTE_GRID) and 0 <= j + dj < len(MEMORY_GRID):
                candidates.add((COMPUTE_GRID[i + di], MEMORY_GRID[j + dj]))
        losses = {c: loss(fit, run_all(a.tycoon, root, c, fit, a.jobs)) for c in sorted(candidates)}
        best = min(losses, key=losses.get)
        print(f"{a.engine} {a.kernel}: shares {value}, fit-split loss {losses[value]:.4f}; neighbours "
              + ", ".join(f"{c}: {l:.4f}" for c, l in losses.items() if c != value))
        return 0 if best == value else 1
    best, _ = descend(a.tycoon, root, fit, a.jobs)
    print(f"## {a.engine}: its {a.kernel} W4A16 expert kernel on H100/H200, fitted to published TTFTs and TPOTs\n")
    print(f"Fitted shares of the chip's grouped-GEMM curves: compute **{best[0]}**, weight streaming **{best[1]}** "
          f"(1/16-octave grids; {len(fit)} fit points, {len(held)} held out)\n")
    print(f"| split | points | the engine's default kernel (before) | {a.kernel} at the fitted shares |")
    print("|---|---|---|---|")
    for name, part in (("fit", fit), ("held-out", held)):
        before = run_all(a.tycoon, root, None, part, a.jobs)
        after = run_all(a.tycoon, root, best, part, a.jobs)
        print(f"| {name} | {len(part)} | {summary(part, before)} | {summary(part, after)} |")
    print("\nHeld-out points: " + ", ".join(p["id"] for p in held))
    return 0


if __name__ == "__main__":
    sys.exit(main())
