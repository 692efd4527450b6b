#!/usr/bin/env python3
"""Calibration of a chip nobody here can measure, fitted to its published serving measurements.

    calibration/fit/fit_published.py [--tycoon build/tycoon] [--rows calibration/published/mi300x_serving.json]
        [--reserved ../shared/validation/reserved_serving_keys.json] [--out hardware_db/calibrated/mi300x.json]

The calibration runner times kernels on the H200; no MI300X is at hand. What a datasheet cannot
give (how much of its peak bandwidth and FLOP/s a chip's kernels reach, and its fixed per-kernel
and per-collective latencies) is fitted instead to published end-to-end measurements of the chip
(the rows file: each row's configuration, published value and source). The profile keeps the
H200's measured curve shapes (efficiency against size, a fraction of the datasheet peak) and fits
four levels over them:

    mem   every memory-bound curve but the MoE ones (GEMM weights, decode attention, norms, copies)
    comp  the GEMM and prefill-attention compute curves
    moe   the grouped expert GEMM curves (compute and memory)
    lat   the fixed latencies: kernel floor, graph gap, all-reduce latency

A rows file may name its own levels ("levels": a list of the names above, or moe_mem and
moe_comp in place of moe: the expert GEMMs' memory and compute curves apart, for rows whose
decode (memory) and prefill (compute) pull the two apart, as the B200's published TPOT and TTFT
do). A serving row compares TPOT (metric tpot_ms) or TTFT (ttft_ms); both rows of one
configuration share one simulated run.

Each candidate profile is written into a copy of the data root (symlinks but for
hardware_db/calibrated/<chip>.json) and every row is simulated with `tycoon benchmark` as the
source ran it (the rows file's "modes"), so a fitted row is simulated exactly as a reader would
re-run it. The fit minimises the squared log error over the rows marked "fit", plus a weak pull of
each level towards 1 (the H200's own level) so that a level the rows cannot see stays there;
coordinate descent over a fixed log grid, deterministic. The rows marked "held-out" never enter
the fit; their errors are the fit's report (printed as markdown, for docs/calibration.md).

Never fits on a configuration reserved for validation: every row is checked against
--reserved (exit 2 naming the row when one matches, and when the file cannot be read).
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

ROOT = Path(__file__).resolve().parents[2]
MEMORY_CURVES = ["gemm_memory_eff", "attn_decode_memory_eff", "elementwise_memory_eff", "rotary_unfused_memory_eff",
                 "activation_unfused_memory_eff", "qk_norm_memory_eff", "kv_write_memory_eff",
                 "moe_route_memory_eff"]
COMPUTE_CURVES = ["gemm_compute_eff_bf16", "gemm_compute_eff_fp8", "gemm_compute_eff_fp4", "attn_prefill_compute_eff"]
MOE_CURVES = ["moe_compute_eff_bf16", "moe_compute_eff_fp8", "moe_compute_eff_fp4", "moe_memory_eff"]
LATENCIES = ["kernel_floor_s", "graph_kernel_gap_s", "allreduce_latency_s", "allreduce_eager_latency_s"]
PARAMS = ["mem", "comp", "moe", "lat"]  # the default levels
LEVEL_CURVES = {"mem": MEMORY_CURVES, "comp": COMPUTE_CURVES, "moe": MOE_CURVES,
                "moe_mem": ["moe_memory_eff"], "moe_comp": MOE_CURVES[:3], "lat": []}
# Level grid: factors of the H200's curves. An efficiency is capped at 1 whatever its factor.
GRID = [round(2 ** (k / 8), 4) for k in range(-16, 9)]  # 0.25 .. 2, 1/8 octave apart
LAT_GRID = [round(2 ** (k / 4), 4) for k in range(-8, 13)]  # 0.25 .. 8
PRIOR_WEIGHT = 0.01  # per level, on log(level)^2: ties broken towards the H200's level
KEY_FIELDS = ["gpu", "engine", "model", "precision", "tp", "ep", "adp", "isl", "osl", "concurrency"]
# A row matching a reserved key on these fields is refused whatever its ep and adp: a published
# row rarely states them, and a near-duplicate of a reserved point must not leak into the fit.
MATCH_FIELDS = ["gpu", "engine", "model", "precision", "tp", "isl", "osl", "concurrency"]
SPLITS = ("fit", "held-out")
# A row's run configuration where its source did not run the engine's defaults -> the option, and
# what the field holds: a precision, or a positive whole number.
RUN_CONFIG = {"kv_dtype": "--kv-dtype", "expert_activation": "--expert-activation",
              "max_num_batched_tokens": "--max-num-batched-tokens", "max_num_seqs": "--max-num-seqs"}
PRECISION_FIELDS = ("kv_dtype", "expert_activation")


class InputError(Exception):
    pass


def load_rows(path):
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: the file must hold one JSON object")
    if not isinstance(doc.get("rows"), list) or not doc["rows"]:
        raise InputError(f"{path}: /rows: a non-empty list of rows is required")
    chip = doc.get("chip")
    if not isinstance(chip, str) or not chip:
        raise InputError(f"{path}: /chip: the chip id is required")
    seen_ids, split_of = set(), {}
    for i, row in enumerate(doc["rows"]):
        where = f"{path}: /rows/{i}"
        if not isinstance(row, dict):
            raise InputError(f"{where}: a row must be an object")
        for field in KEY_FIELDS + ["id", "split", "mode", "metric", "published", "source"]:
            if field not in row:
                raise InputError(f"{where}/{field}: missing")
        if row["gpu"] != chip:
            raise InputError(f"{where}/gpu: '{row['gpu']}' is not the file's chip '{chip}'")
        if row["split"] not in SPLITS:
            raise InputError(f"{where}/split: must be one of {', '.join(SPLITS)}")
        if row["mode"] not in ("latency", "throughput", "serving"):
            raise InputError(f"{where}/mode: must be latency, throughput or serving")
        expected = {"latency": ["e2e_s"], "throughput": ["output_tok_per_s"], "serving": ["tpot_ms", "ttft_ms"]}
        if row["metric"] not in expected[row["mode"]]:
            raise InputError(f"{where}/metric: a {row['mode']} row's metric is {' or '.join(expected[row['mode']])}")
        for field in ("tp", "ep", "isl", "osl", "concurrency"):
            if not isinstance(row[field], int) or isinstance(row[field], bool) or row[field] < 1:
                raise InputError(f"{where}/{field}: a positive whole number is required")
        if row["tp"] % row["ep"] != 0:
            raise InputError(f"{where}/ep: must divide tp ({row['tp']})")
        if (not isinstance(row["published"], (int, float)) or isinstance(row["published"], bool)
                or not math.isfinite(row["published"]) or not row["published"] > 0):
            raise InputError(f"{where}/published: a positive number is required")
        if row["id"] in seen_ids:
            raise InputError(f"{where}/id: '{row['id']}' is given twice")
        seen_ids.add(row["id"])
        # The rows of one configuration share one simulated run, so they share one split: a
        # fitted run must not also be a held-out one.
        config = tuple(str(row.get(f)) for f in KEY_FIELDS + ["mode"] + list(RUN_CONFIG))
        if split_of.setdefault(config, row["split"]) != row["split"]:
            raise InputError(f"{where}/split: another row of the same configuration is '{split_of[config]}'")
        if not str(row["source"]).strip():
            raise InputError(f"{where}/source: must say where the number comes from")
        # The model measured, where a card of the same architecture stands in for it (the card's id
        # is `model`): the reserved keys are checked against both names.
        if "published_model" in row and (not isinstance(row["published_model"], str) or not row["published_model"].strip()):
            raise InputError(f"{where}/published_model: the measured model's name, as the source gives it")
        # How the source ran the engine where it is not the engine's default (its launch script).
        for field in RUN_CONFIG:
            if field in PRECISION_FIELDS and field in row and row[field] not in ("bf16", "fp8", "fp4"):
                raise InputError(f"{where}/{field}: one of bf16, fp8, fp4")
            if field not in PRECISION_FIELDS and field in row and (
                    not isinstance(row[field], int) or isinstance(row[field], bool) or row[field] < 1):
                raise InputError(f"{where}/{field}: a positive whole number is required")
            if field in row and not str(row.get("run_config_source", "")).strip():
                raise InputError(f"{where}/run_config_source: must say where {field} comes from")
    if not any(r["split"] == "fit" for r in doc["rows"]):
        raise InputError(f"{path}: /rows: no row is marked split 'fit'")
    levels = doc.get("levels", PARAMS)
    if (not isinstance(levels, list) or not levels or any(not isinstance(k, str) or k not in LEVEL_CURVES for k in levels)
            or len(set(levels)) != len(levels) or ("moe" in levels and ("moe_mem" in levels or "moe_comp" in levels))):
        raise InputError(f"{path}: /levels: a list of distinct level names from {', '.join(LEVEL_CURVES)} "
                         "(moe, or moe_mem and moe_comp, not both)")
    base = doc.get("base", "measured")
    if base not in ("measured", "in-use"):
        raise InputError(f"{path}: /base: 'measured' (the --base profile's curves as they are) or 'in-use' (those "
                         "curves as the simulator lends them to this chip: tycoon fit --hardware CHIP --in-use)")
    return chip, doc["rows"], levels, base


def refuse_reserved(rows, reserved_path):
    """Raises InputError naming the first row whose configuration is reserved for validation."""
    try:
        doc = json.loads(Path(reserved_path).read_text())
        fields = doc["fields"]
        keys = doc["keys"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise InputError(f"{reserved_path}: cannot read the reserved keys ({e}); refusing to fit without them")
    index = [fields.index(f) for f in MATCH_FIELDS]
    reserved = {tuple(str(k[i]).lower() for i in index) for k in keys}
    for row in rows:
        names = [row["model"]] + ([row["published_model"]] if "published_model" in row else [])
        keys = [tuple(str(name if f == "model" else row[f]).lower() for f in MATCH_FIELDS) for name in names]
        if any(key in reserved for key in keys):
            measured = f", measured as {row['published_model']}" if "published_model" in row else ""
            raise InputError(f"row '{row['id']}': its configuration ({', '.join(f'{f}={row[f]}' for f in MATCH_FIELDS)}"
                             f"{measured}) "
                             f"is reserved for validation in {reserved_path}; it must not be fitted on")


def scaled_profile(base, chip, levels, source):
    """The base (H200) profile with its curves and latencies multiplied by `levels`."""
    p = json.loads(json.dumps(base))
    p["chip"] = chip
    p["provenance"] = "fitted-to-published"
    p["source"] = source

    def scale(names, factor):
        for name in names:
            p[name] = [[size, min(1.0, round(value * factor, 6))] for size, value in p[name]]

    for k, factor in levels.items():
        scale(LEVEL_CURVES[k], factor)
    for name in LATENCIES:
        p[name] = p[name] * levels.get("lat", 1.0)
    # Levels fitted to end-to-end rows: no kernel of this chip was measured at any size.
    p["max_measured_tokens"] = 0
    p["max_measured_context"] = 0
    return p


class DataRoot:
    """A copy of the repository's data root whose hardware_db/calibrated/<chip>.json is a candidate."""

    def __init__(self, chip):
        self.tmp = tempfile.TemporaryDirectory(prefix="fit_published_")
        root = Path(self.tmp.name)
        for entry in ROOT.iterdir():
            if entry.name not in ("hardware_db", ".git", "build"):
                (root / entry.name).symlink_to(entry)
        (root / "hardware_db").mkdir()
        for entry in (ROOT / "hardware_db").iterdir():
            if entry.name != "calibrated":
                (root / "hardware_db" / entry.name).symlink_to(entry)
        (root / "hardware_db" / "calibrated").mkdir()
        for entry in (ROOT / "hardware_db" / "calibrated").iterdir():
            if entry.name != f"{chip}.json":
                (root / "hardware_db" / "calibrated" / entry.name).symlink_to(entry)
        self.root = root
        self.profile = root / "hardware_db" / "calibrated" / f"{chip}.json"

    def write(self, profile):
        self.profile.write_text(json.dumps(profile, indent=2) + "\n")


def benchmark_args(row):
    args = ["benchmark", "--hardware", row["gpu"], "--model", row["model"], "--engine", row["engine"],
            "--precision", row["precision"], "--tp", str(row["tp"]), "--spec-tokens", "0", "--workload", "random",
            "--isl", str(row["isl"]), "--osl", str(row["osl"]), "--concurrency", str(row["concurrency"]),
            "--seed", "1", "--json"]
    if row["ep"] != 1:
        args += ["--ep", str(row["ep"])]
    for field, option in RUN_CONFIG.items():
        if field in row:
            args += [option, str(row[field])]
    if row["mode"] in ("latency", "throughput"):
        # One batch of exactly isl/osl tokens straight to the engine, as vLLM's offline scripts.
        args += ["--offline", "--num-requests", str(row["concurrency"]), "--warmup-requests", "0",
                 "--random-range-ratio", "1", "--output-range-ratio", "1"]
    if row["mode"] == "throughput":
        args += ["--max-num-seqs", str(row["concurrency"])]
    return args


def simulated(row, out):
    if row["metric"] == "e2e_s":
        return out["e2e_ms"]["mean"] / 1000
    if row["metric"] == "output_tok_per_s":
        return out["output_tok_per_s_per_gpu"] * row["tp"]
    if row["metric"] == "ttft_ms":
        return out["ttft_ms"]["mean"]
    return out["tpot_ms"]["mean"]


def run_args(tycoon, data_root, args, row_id):
    env = dict(os.environ, TYCOON_DATA=str(data_root))
    res = subprocess.run([tycoon] + list(args), capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise InputError(f"row '{row_id}': tycoon {' '.join(args)} failed: {res.stderr.strip()}")
    return json.loads(res.stdout)


def evaluate(tycoon, data_root, rows, jobs):
    """Each row's simulated value; rows with the same configuration share one run."""
    runs = {}
    for r in rows:
        runs.setdefault(tuple(benchmark_args(r)), r["id"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        outs = dict(zip(runs, pool.map(lambda a: run_args(tycoon, data_root, a, runs[a]), runs)))
    return [simulated(r, outs[tuple(benchmark_args(r))]) for r in rows]


def loss(rows, sims, levels):
    fit = sum(math.log(s / r["published"]) ** 2 for r, s in zip(rows, sims))
    return fit + PRIOR_WEIGHT * sum(math.log(v) ** 2 for v in levels.values())


def fit_levels(tycoon, data, base, chip, fit_rows, names, jobs, log):
    levels = {k: 1.0 for k in names}
    cache = {}

    def cost(lv):
        key = tuple(lv[k] for k in names)
        if key not in cache:
            data.write(scaled_profile(base, chip, lv, "candidate"))
            cache[key] = loss(fit_rows, evaluate(tycoon, data.root, fit_rows, jobs), lv)
        return cache[key]

    best = cost(levels)
    for sweep in range(3):
        moved = False
        for k in names:
            for v in LAT_GRID if k == "lat" else GRID:
                trial = dict(levels, **{k: v})
                c = cost(trial)
                if c < best - 1e-12:
                    best, levels, moved = c, trial, True
        log(f"sweep {sweep + 1}: " + ", ".join(f"{k} x{levels[k]:g}" for k in names) + f", loss {best:.4f}")
        if not moved:
            break
    return levels


def error(sim, pub):
    return (sim - pub) / pub


def summary(rows, sims, label=""):
    """Median |error|, median signed error and largest |error| per split and metric."""
    lines = []
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    for split in SPLITS:
        for metric in metrics:
            errs = [error(s, r["published"]) for r, s in zip(rows, sims) if r["split"] == split and r["metric"] == metric]
            if errs:
                what = f"{label}{split}" if len(metrics) == 1 else f"{label}{split}, {metric}"
                lines.append(f"{what}: {len(errs)} rows, median |error| {100 * statistics.median(map(abs, errs)):.1f}%, "
                             f"median signed error {100 * statistics.median(errs):+.1f}%, "
                             f"largest |error| {100 * max(map(abs, errs)):.1f}%")
    return lines


def report(rows, sims, levels, cmd):
    lines = [f"Fitted levels over the H200's curve shapes: " + ", ".join(f"{k} ×{v:g}" for k, v in levels.items()) +
             f" (`{cmd}`).", "",
             "| row | split | engine | model | TP | ISL/OSL | users | metric | published | ours | error |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r, s in zip(rows, sims):
        lines.append(f"| {r['id']} | {r['split']} | {r['engine']} | {r['model']} | {r['tp']} | {r['isl']}/{r['osl']} | "
                     f"{r['concurrency']} | {r['metric']} | {r['published']:g} | {s:.4g} | "
                     f"{100 * error(s, r['published']):+.1f}% |")
    lines.append("")
    lines += summary(rows, sims)
    return "\n".join(lines)


def parse_levels(text):
    """--at-levels NAME=X,...: each a level name once, a positive finite factor; moe or its parts."""
    given = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            factor = float(value)
        except ValueError:
            factor = float("nan")
        if name not in LEVEL_CURVES or not math.isfinite(factor) or factor <= 0:
            raise InputError(f"--at-levels: '{part}': a level name ({', '.join(LEVEL_CURVES)}) = a positive number")
        if name in given:
            raise InputError(f"--at-levels: '{name}' is given twice")
        given[name] = factor
    if "moe" in given and ("moe_mem" in given or "moe_comp" in given):
        raise InputError("--at-levels: moe, or moe_mem and moe_comp, not both (they scale the same curves)")
    return given


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--rows", default=str(ROOT / "calibration" / "published" / "mi300x_serving.json"))
    ap.add_argument("--reserved", default=str(ROOT.parent / "shared" / "validation" / "reserved_serving_keys.json"))
    ap.add_argument("--base", default=str(ROOT / "hardware_db" / "calibrated" / "h200.json"),
                    help="profile whose curve shapes are kept (a measured one)")
    ap.add_argument("--out", help="profile to write (default: hardware_db/calibrated/<chip>.json)")
    ap.add_argument("--check-only", action="store_true", help="check the rows and the reserved keys, fit nothing")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--at-levels", metavar="NAME=X,...",
                    help="fit nothing: print the rows' errors at these levels over the base (e.g. another chip's "
                         "fitted levels, mem=1.5422,comp=0.4585,lat=1.1892); writes no profile")
    a = ap.parse_args()
    try:
        given = None if a.at_levels is None else parse_levels(a.at_levels)
        chip, rows, names, base_kind = load_rows(a.rows)
        refuse_reserved(rows, a.reserved)
        if a.check_only:
            print(f"{a.rows}: {len(rows)} rows, none reserved")
            return 0
        base = json.loads(Path(a.base).read_text())
        if base.get("provenance") != "measured":
            raise InputError(f"{a.base}: /provenance: the base must be a measured profile")
        if not os.access(a.tycoon, os.X_OK):
            raise InputError(f"{a.tycoon}: not found (build it: cmake --build build --target tycoon)")
        data = DataRoot(chip)
        base_note = "the H200's measured curve shapes (hardware_db/calibrated/h200.json)"
        if base_kind == "in-use":
            # The measured curves as the simulator lends them to this chip (their throughput term
            # scaled by its datasheet, their latency term kept): the levels fit what the datasheet
            # scaling leaves out, not the scaling itself.
            res = subprocess.run([a.tycoon, "fit", "--hardware", chip, "--in-use"], capture_output=True, text=True,
                                 env=dict(os.environ, TYCOON_DATA=str(data.root)))
            if res.returncode != 0:
                raise InputError(f"tycoon fit --hardware {chip} --in-use failed: {res.stderr.strip()}")
            base = json.loads(res.stdout)
            base_note = ("the H200's measured curves as the simulator lends them to this chip (tycoon fit --hardware "
                         f"{chip} --in-use: their throughput term scaled by its datasheet peaks)")
        if given is not None:
            data.write(scaled_profile(base, chip, given, "probe"))
            print("\n".join([f"At levels {a.at_levels} over the base:"] +
                            summary(rows, evaluate(a.tycoon, data.root, rows, a.jobs))))
            return 0
        fit_rows = [r for r in rows if r["split"] == "fit"]
        levels = fit_levels(a.tycoon, data, base, chip, fit_rows, names, a.jobs, lambda s: print(s, file=sys.stderr))
        cmd = "calibration/fit/fit_published.py --rows " + os.path.relpath(a.rows, ROOT)
        held = [r for r in rows if r["split"] == "held-out"]
        probe = scaled_profile(base, chip, levels, "probe")
        data.write(probe)
        sims = evaluate(a.tycoon, data.root, rows, a.jobs)
        errs = [error(s, r["published"]) for r, s in zip(rows, sims) if r["split"] == "held-out"]
        held_note = (f"; held-out median |error| {100 * statistics.median(map(abs, errs)):.1f}% over {len(held)} rows"
                     if errs else "")
        source = (f"{cmd} on {len(fit_rows)} published rows ({len(held)} more held out{held_note}): {base_note} "
                  f"with levels " +
                  ", ".join(f"{k} x{v:g}" for k, v in levels.items()) + "; each row's source in " +
                  os.path.relpath(a.rows, ROOT))
        profile = scaled_profile(base, chip, levels, source)
        out = Path(a.out) if a.out else ROOT / "hardware_db" / "calibrated" / f"{chip}.json"
        out.write_text(json.dumps(profile, indent=2) + "\n")
        print(report(rows, sims, levels, cmd))
        # The same rows before the fit: the base curves at level 1 (for a lent base, what the
        # simulator gave this chip without the fit).
        data.write(scaled_profile(base, chip, {k: 1.0 for k in names}, "probe"))
        print("\n".join(["", "Before the fit (every level x1):"] + summary(rows, evaluate(a.tycoon, data.root, rows, a.jobs))))
        print(f"wrote {out}", file=sys.stderr)
        return 0
    except InputError as e:
        print(f"fit_published.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
