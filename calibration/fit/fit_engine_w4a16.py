#!/usr/bin/env python3
"""An engine's W4A16 expert GEMMs on Hopper, fitted to published serving measurements.

    calibration/fit/fit_engine_w4a16.py [--engine vllm] [--tycoon build/tycoon]
        [--reserved ../shared/validation/reserved_serving_keys.json] [--check] [--jobs 2]

GPT-OSS-120B ships MXFP4 experts. A chip without 4-bit math (H100, H200) runs them through a
kernel that dequantises the weights and multiplies in bf16 (W4A16: Marlin or OpenAI's
triton_kernels in vLLM; calibration/data/h200/diagnostics/prefill_moe_mla_notes.md, "MXFP4").
None of those kernels could be run here; ours reaches 0.42-0.45 of the bf16 grouped GEMM's
speed at prefill sizes and is only a bound. What the perf model needs is one number per engine
and vendor: the share of the bf16 grouped GEMM's compute efficiency the engine's W4A16 kernel
reaches (Engine::moe_w4a16_compute_efficiency; the weight streaming is not scaled).

This fits it to the published TTFTs and TPOTs of the engine's GPT-OSS-120B FP4 runs on H100 and H200
(calibration/published/serving_points.json and serving_points_moe.json, NVIDIA aiconfigurator's
silicon sample): every third point by id is held out and never enters the fit; the fit minimises
the squared log errors of the mean TTFT and TPOT over the rest on a 1/16-octave grid from 0.25 to 1. It
prints the before (1.0) and after errors of both splits, TTFT and TPOT, as markdown.

Never fits on a configuration reserved for validation: every point is checked against
--reserved (exit 2 naming the point when one matches, or when the file cannot be read).

--reserved-only: checks every point of both files against --reserved and fits nothing (exit 2
naming the first reserved one).

--check: instead of the whole grid, runs the engine file's value and its two grid neighbours on
the fit split and fails (exit 1) unless the file's value is the best of the three.
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
POINT_FILES = ["calibration/published/serving_points.json", "calibration/published/serving_points_moe.json"]
CHIPS = ("h100", "h200")  # no 4-bit math: the W4A16 path
GRID = [round(2 ** (k / 16), 4) for k in range(-32, 1)]  # 0.25 .. 1


def points(engine):
    """The engine's GPT-OSS-120B FP4 points on H100/H200 (engine None: every point), split."""
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
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            raise fit_published.InputError(f"{f}: cannot read the points: {e}")
        for p in listed:
            if engine is None or (p["engine"] == engine and p["hardware"] in CHIPS and p["model"] == "gpt-oss-120b"
                                  and p["precision"] == "fp4"):
                rows.append(dict(p, file=f))
    rows.sort(key=lambda p: p["id"])
    for i, p in enumerate(rows):
        p["split"] = "held-out" if i % 3 == 2 else "fit"
    return rows


def reserved_view(p):
    """The point in the reserved keys' field names (fit_published.refuse_reserved)."""
    return {"id": p["id"], "gpu": p["hardware"], "engine": p["engine"], "model": p["model"],
            "precision": p["precision"], "tp": p["tp"], "ep": p.get("ep", 1), "adp": 1, "isl": p["isl"],
            "osl": p["osl"], "concurrency": p["concurrency"]}


class EngineRoot:
    """A copy of the data root (symlinks) whose engine file carries a candidate factor."""

    def __init__(self, engine):
        self.dir = tempfile.TemporaryDirectory(prefix="tycoon-w4a16-")
        self.path = Path(self.dir.name)
        self.engine = engine
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

    def set(self, factor):
        doc = json.loads(json.dumps(self.base))
        doc["moe_w4a16_compute_efficiency"] = dict(doc.get("moe_w4a16_compute_efficiency", {}), nvidia=factor)
        doc.setdefault("sources", {})["moe_w4a16_compute_efficiency"] = "candidate of fit_engine_w4a16.py"
        (self.path / "hardware_db" / "engines" / f"{self.engine}.json").write_text(json.dumps(doc))


def simulate(tycoon, data_root, p):
    args = [tycoon, "benchmark", "--hardware", p["hardware"], "--model", p["model"], "--engine", p["engine"],
            "--precision", p["precision"], "--tp", str(p["tp"]), "--spec-tokens", "0", "--workload", "random",
            "--isl", str(p["isl"]), "--osl", str(p["osl"]), "--concurrency", str(p["concurrency"]), "--seed", "1",
            "--json"]
    if p.get("ep", 1) != 1:
        args += ["--ep", str(p["ep"])]
    r = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, TYCOON_DATA=str(data_root)))
    if r.returncode != 0:
        raise RuntimeError(f"{p['id']}: tycoon benchmark failed: {r.stderr.strip()}")
    s = json.loads(r.stdout)
    return s["ttft_ms"]["mean"], s["tpot_ms"]["mean"]


def run_all(tycoon, root, factor, rows, jobs):
    root.set(factor)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        return list(ex.map(lambda p: simulate(tycoon, root.path, p), rows))


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="vllm")
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--reserved", default=str(ROOT.parent / "shared" / "validation" / "reserved_serving_keys.json"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--reserved-only", action="store_true",
                    help="check that no point of the points files is a reserved configuration, fit nothing")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    try:
        rows = points(None if a.reserved_only else a.engine)
        if a.reserved_only:
            fit_published.refuse_reserved([reserved_view(p) for p in rows], a.reserved)
            print(f"{', '.join(POINT_FILES)}: {len(rows)} points, none reserved")
            return 0
    except fit_published.InputError as e:
        print(f"fit_engine_w4a16.py: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"fit_engine_w4a16.py: no GPT-OSS-120B FP4 point of {a.engine} on {', '.join(CHIPS)}", file=sys.stderr)
        return 2
    try:
        fit_published.refuse_reserved([reserved_view(p) for p in rows], a.reserved)
    except fit_published.InputError as e:
        print(f"fit_engine_w4a16.py: {e}", file=sys.stderr)
        return 2
    fit = [p for p in rows if p["split"] == "fit"]
    held = [p for p in rows if p["split"] == "held-out"]
    root = EngineRoot(a.engine)
    if a.check:
        value = root.base.get("moe_w4a16_compute_efficiency", {}).get("nvidia", 1.0)
        if value not in GRID:
            print(f"fit_engine_w4a16.py: {a.engine}'s moe_w4a16_compute_efficiency.nvidia {value} is not on the grid")
            return 1
        i = GRID.index(value)
        candidates = GRID[max(0, i - 1):i + 2]
        losses = {f: loss(fit, run_all(a.tycoon, root, f, fit, a.jobs)) for f in candidates}
        best = min(losses, key=losses.get)
        print(f"{a.engine}: W4A16 factor {value}, fit-split loss {losses[value]:.4f}; neighbours "
              + ", ".join(f"{f}: {l:.4f}" for f, l in losses.items() if f != value))
        return 0 if best == value else 1
    losses = {}
    for f in GRID:
        losses[f] = loss(fit, run_all(a.tycoon, root, f, fit, a.jobs))
        print(f"  {f:.4f}: loss {losses[f]:.4f}", file=sys.stderr)
    best = min(losses, key=losses.get)
    print(f"## {a.engine}: W4A16 expert GEMMs on H100/H200, fitted to published TTFTs and TPOTs\n")
    print(f"Fitted factor: **{best}** (grid 0.25-1 in 1/16 octaves; {len(fit)} fit points, {len(held)} held out)\n")
    print("| split | points | factor 1.0 (before) | fitted |")
    print("|---|---|---|---|")
    for name, part in (("fit", fit), ("held-out", held)):
        before = run_all(a.tycoon, root, 1.0, part, a.jobs)
        after = run_all(a.tycoon, root, best, part, a.jobs)
        print(f"| {name} | {len(part)} | {summary(part, before)} | {summary(part, after)} |")
    print("\nHeld-out points: " + ", ".join(p["id"] for p in held))
    return 0


if __name__ == "__main__":
    sys.exit(main())
