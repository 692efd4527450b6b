#!/usr/bin/env python3
"""How much of an engine's published TTFT gap a fixed per-request latency would close: a sweep, not a fit.

    calibration/fit/sweep_engine_frontend.py --engine trtllm [--form request|layer] [--tycoon build/tycoon]
        [--reserved ../shared/validation/reserved_serving_keys.json] [--jobs 2]

On the published points (calibration/published/serving_points.json and serving_points_moe.json:
NVIDIA aiconfigurator's silicon sample, InferenceX's runs), our TTFT under TensorRT-LLM and SGLang
is short by a gap that is roughly additive (docs/fidelity.md, "The signed errors by group").
vLLM's card charges a per-request front-end latency with a published source
(`frontend_request_s`, 12 ms); the other two engines' cards charge none, for want of one. This
script asks what a value fitted to the published points would do, and whether one value could
serve every model:

  --form request   the engine's `frontend_request_s` set to each value of a grid (0-300 ms);
  --form layer     the same latency as a cost per transformer layer of the point's model
                   (0-5 ms a layer), i.e. a model-dependent per-request cost.

Each of the engine's points is run with `tycoon benchmark` as scripts/fidelity_published.sh runs
it (the same options), on a copy of the data root whose engine card carries the value. The points
are split as the project's other fits are: every third by id is held out. For each value it
prints, as markdown, the median |TTFT error| and the median signed TTFT error of both splits, the
median signed TPOT error, and the median signed TTFT error of each group (model, GPU, engine
version). It changes no file of the project; the engines' cards are not fitted from it
(docs/fidelity.md says why).

Never runs a configuration reserved for validation: every point is checked against --reserved
(exit 2 naming the point when one matches, or when the file cannot be read).
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_engine_w4a16 as w4  # noqa: E402  (the points files, their reserved view, the data root copy)
import fit_published  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GRIDS = {
    "request": [0.0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3],  # seconds a request
    "layer": [0.0, 0.0005, 0.001, 0.0015, 0.002, 0.0025, 0.003, 0.004, 0.005],  # seconds a layer
}


def model_layers(model):
    """Transformer layers of a model card: the sum of its layer groups' counts."""
    try:
        doc = json.loads((ROOT / "models" / f"{model}.json").read_text())
        return sum(int(g["count"]) for g in doc["layer_groups"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise fit_published.InputError(f"models/{model}.json: cannot read its layer_groups' counts: {e}")


def engine_points(engine):
    rows = [p for p in w4.points(None, None) if p["engine"] == engine]
    rows.sort(key=lambda p: p["id"])
    for i, p in enumerate(rows):
        p["split"] = "held-out" if i % 3 == 2 else "fit"
    return rows


def simulate(tycoon, data_root, p):
    args = [tycoon, "benchmark", "--hardware", p["hardware"], "--model", p["model"], "--engine", p["engine"],
            "--precision", p["precision"], "--tp", str(p["tp"]), "--spec-tokens", "0", "--workload", "random",
            "--isl", str(p["isl"]), "--osl", str(p["osl"]), "--concurrency", str(p["concurrency"]), "--seed", "1",
            "--json"]
    if p.get("ep", 1) != 1:
        args += ["--ep", str(p["ep"])]
    for field, flag in (("kv_dtype", "--kv-dtype"), ("expert_activation", "--expert-activation"),
                        ("mxfp4_backend", "--mxfp4-backend")):
        if p.get(field):
            args += [flag, p[field]]
    r = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, TYCOON_DATA=str(data_root)))
    if r.returncode != 0:
        raise RuntimeError(f"{p['id']}: tycoon benchmark failed: {r.stderr.strip()}")
    s = json.loads(r.stdout)
    return s["ttft_ms"]["mean"], s["tpot_ms"]["mean"]


def run(tycoon, root, engine, rows, latency_of, jobs):
    """Every row with the engine's frontend_request_s = latency_of(row), one card per distinct value."""
    out = [None] * len(rows)
    by_value = {}
    for i, p in enumerate(rows):
        by_value.setdefault(latency_of(p), []).append(i)
    for value, idx in sorted(by_value.items()):
        doc = json.loads(json.dumps(root.base))
        doc["frontend_request_s"] = value
        doc.setdefault("sources", {})["frontend_request_s"] = "candidate of sweep_engine_frontend.py"
        (root.path / "hardware_db" / "engines" / f"{engine}.json").write_text(json.dumps(doc))
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for i, s in zip(idx, ex.map(lambda k: simulate(tycoon, root.path, rows[k]), idx)):
                out[i] = s
    return out


def pct(ours, published):
    return 100.0 * (ours - published) / published


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--form", choices=sorted(GRIDS), default="request")
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--reserved", default=str(ROOT.parent / "shared" / "validation" / "reserved_serving_keys.json"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    try:
        rows = engine_points(a.engine)
        if not rows:
            raise fit_published.InputError(f"no published point of engine '{a.engine}' in {', '.join(w4.POINT_FILES)}")
        fit_published.refuse_reserved([w4.reserved_view(p) for p in rows], a.reserved)
        layers = {m: model_layers(m) for m in {p["model"] for p in rows}}
    except fit_published.InputError as e:
        print(f"sweep_engine_frontend.py: {e}", file=sys.stderr)
        return 2
    root = w4.EngineRoot(a.engine, "none")
    groups = sorted({(p["model"], p["hardware"], p.get("engine_version", "?")) for p in rows})
    unit = "ms a request" if a.form == "request" else "ms a layer"
    print(f"## {a.engine}: a per-request latency ({a.form} form), {len(rows)} published points "
          f"({sum(p['split'] == 'fit' for p in rows)} fit, {sum(p['split'] == 'held-out' for p in rows)} held out)\n")
    print("Groups: " + "; ".join(f"({i + 1}) {m}, {h}, {v}, {sum((p['model'], p['hardware'], p.get('engine_version', '?')) == (m, h, v) for p in rows)} points"
                                 for i, (m, h, v) in enumerate(groups)) + "\n")
    print(f"| {unit} | fit: median \\|TTFT error\\| | fit: median TTFT error | held-out: median \\|TTFT error\\| | "
          "held-out: median TTFT error | median TPOT error | " + " | ".join(f"({i + 1})" for i in range(len(groups))) + " |")
    print("|" + "---|" * (6 + len(groups)))
    for value in GRIDS[a.form]:
        latency_of = (lambda p, v=value: v) if a.form == "request" else (lambda p, v=value: round(v * layers[p["model"]], 6))
        sims = run(a.tycoon, root, a.engine, rows, latency_of, a.jobs)
        cells = [f"{1000 * value:g}"]
        for split in ("fit", "held-out"):
            e = [pct(s[0], p["published"]["ttft_ms"]) for p, s in zip(rows, sims) if p["split"] == split]
            cells += [f"{statistics.median(abs(x) for x in e):.1f}%", f"{statistics.median(e):+.1f}%"]
        cells.append(f"{statistics.median(pct(s[1], p['published']['tpot_ms']) for p, s in zip(rows, sims)):+.1f}%")
        for g in groups:
            e = [pct(s[0], p["published"]["ttft_ms"]) for p, s in zip(rows, sims)
                 if (p["model"], p["hardware"], p.get("engine_version", "?")) == g]
            cells.append(f"{statistics.median(e):+.0f}%")
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
