#!/usr/bin/env python3
"""How much of an engine's published TTFT gap a per-request latency would close: a sweep, not a fit.

    calibration/fit/sweep_engine_frontend.py --engine trtllm [--form request|layer] [--values MS,...]
        [--tycoon build/tycoon] [--reserved ../shared/validation/reserved_serving_keys.json] [--jobs 2]

On the published points (calibration/published/serving_points.json, serving_points_moe.json and
serving_points_minimax.json:
NVIDIA aiconfigurator's silicon sample, InferenceX's runs), our TTFT under TensorRT-LLM and SGLang
is short by a gap that is roughly additive (docs/fidelity.md, "The signed errors by group").
vLLM's card charges a per-request front-end latency with a published source
(`frontend_request_s`, 12 ms); the other two engines' cards charge none, for want of one. This
script asks what a value fitted to the published points would do, and whether one value could
serve every model:

  --form request   the engine's `frontend_request_s` set to each value of a grid (0-300 ms);
  --form layer     the same latency as a cost per transformer layer of the point's model
                   (0-5 ms a layer), i.e. a model-dependent per-request cost;
  --values         these values (ms a request or a layer) instead of the form's grid.

Each of the engine's points is run with `tycoon benchmark` as scripts/fidelity_published.sh runs
it (the same options: fit_engine_w4a16.benchmark_args), on a copy of the data root whose engine
card carries the value. The points are split as the project's other fits are: every third by id is
held out. For each value it prints, as markdown, the median |TTFT error| and the median signed TTFT
error of both splits, how many points are within 15%, the median signed TPOT error, and the median
signed TTFT error of each group (model, GPU, engine version): a group's median can be near zero
over points far apart. It changes no file of the project; the engines' cards are not fitted from
it (docs/fidelity.md, "Session 31", says why).

Never runs a configuration reserved for validation: every point is checked against --reserved
(exit 2 naming the point when one matches, or when the file cannot be read). Bad input (an
unknown engine, its card unreadable, a point without a positive published TTFT or TPOT, a point
the simulator refuses, no executable --tycoon, bad --values or --jobs) exits 2 with the file,
field and reason.
"""

import argparse
import concurrent.futures
import json
import os
import statistics
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
    """The engine's points, every one (the reserved-key check reads them all), split as the fits
    split. A point marked not_steady_state is no target for a steady-state cost: main() runs the
    others (scripts/fidelity_published.sh leaves it out of its medians too)."""
    rows = [p for p in w4.points(None, None) if p["engine"] == engine]
    rows.sort(key=lambda p: p["id"])
    rows = [p for p in rows if not p.get("not_steady_state")] + [p for p in rows if p.get("not_steady_state")]
    for i, p in enumerate(rows):
        p["split"] = "held-out" if i % 3 == 2 else "fit"
    return rows


def run(tycoon, root, rows, latency_of, jobs):
    """Every row with the engine's frontend_request_s = latency_of(row), one card per distinct value."""
    out = [None] * len(rows)
    by_value = {}
    for i, p in enumerate(rows):
        by_value.setdefault(latency_of(p), []).append(i)
    for value, idx in sorted(by_value.items()):
        doc = json.loads(json.dumps(root.base))
        doc["frontend_request_s"] = value
        doc.setdefault("sources", {})["frontend_request_s"] = "candidate of sweep_engine_frontend.py"
        root.write(doc)
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for i, s in zip(idx, ex.map(lambda k: w4.simulate(tycoon, root.path, rows[k], True), idx)):
                out[i] = s
    return out


def pct(ours, published):
    return 100.0 * (ours - published) / published


def group_of(p):
    return (p["model"], p["hardware"], p.get("engine_version", "?"))


def check_published(rows):
    """Each point's published TTFT and TPOT: positive numbers (else InputError naming file and field)."""
    for p in rows:
        for key in ("ttft_ms", "tpot_ms"):
            v = p["published"].get(key) if isinstance(p["published"], dict) else None
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0:
                raise fit_published.InputError(f"{p['file']}: point {p['id']}: /published/{key}: a positive number "
                                               f"is required (got {v!r})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--form", choices=sorted(GRIDS), default="request")
    ap.add_argument("--values", help="comma-separated values in ms (a request or a layer) instead of the form's grid")
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--reserved", default=str(ROOT.parent / "shared" / "validation" / "reserved_serving_keys.json"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    try:
        if a.jobs < 1:
            raise fit_published.InputError(f"--jobs: at least 1 is required (got {a.jobs})")
        grid = GRIDS[a.form]
        if a.values is not None:
            try:
                grid = [float(v) / 1000 for v in a.values.split(",")]
            except ValueError:
                raise fit_published.InputError(
                    f"--values: comma-separated numbers of ms are required (got {a.values!r})")
            if any(not 0 <= v <= 10 for v in grid):
                raise fit_published.InputError(f"--values: each value must be 0 to 10,000 ms (got {a.values!r})")
        if not (os.path.isfile(a.tycoon) and os.access(a.tycoon, os.X_OK)):
            raise fit_published.InputError(f"--tycoon: {a.tycoon} is not an executable (build it: "
                                           "cmake --build build --target tycoon)")
        rows = engine_points(a.engine)
        if not rows:
            raise fit_published.InputError(f"no published point of engine '{a.engine}' in {', '.join(w4.POINT_FILES)}")
        check_published(rows)
        fit_published.refuse_reserved([w4.reserved_view(p) for p in rows], a.reserved)
        rows = [p for p in rows if not p.get("not_steady_state")]
        layers = {m: model_layers(m) for m in {p["model"] for p in rows}}
        root = w4.EngineRoot(a.engine, None, prefix="tycoon-frontend-")
    except fit_published.InputError as e:
        print(f"sweep_engine_frontend.py: {e}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError) as e:
        print(f"sweep_engine_frontend.py: hardware_db/engines/{a.engine}.json: cannot read the engine's card: {e}",
              file=sys.stderr)
        return 2
    groups = sorted({group_of(p) for p in rows})
    unit = "ms a request" if a.form == "request" else "ms a layer"
    n_fit = sum(p["split"] == "fit" for p in rows)
    print(f"## {a.engine}: a per-request latency ({a.form} form), {len(rows)} published points "
          f"({n_fit} fit, {len(rows) - n_fit} held out)\n")
    print("Groups: " + "; ".join(f"({i + 1}) {m}, {h}, {v}, {sum(group_of(p) == (m, h, v) for p in rows)} points"
                                 for i, (m, h, v) in enumerate(groups)) + "\n")
    print(f"| {unit} | fit: median \\|TTFT error\\| | fit: median TTFT error | held-out: median \\|TTFT error\\| | "
          "held-out: median TTFT error | points within ±15% | median TPOT error | "
          + " | ".join(f"({i + 1})" for i in range(len(groups))) + " |")
    print("|" + "---|" * (7 + len(groups)))
    for value in grid:
        if a.form == "request":
            def latency_of(p, v=value):
                return v
        else:
            def latency_of(p, v=value):
                return round(v * layers[p["model"]], 6)
        try:
            sims = run(a.tycoon, root, rows, latency_of, a.jobs)
        except RuntimeError as e:  # a point the simulator refuses: its reason, from the simulator
            print(f"sweep_engine_frontend.py: {e}", file=sys.stderr)
            return 2
        ttft = [pct(s[0], p["published"]["ttft_ms"]) for p, s in zip(rows, sims)]
        cells = [f"{1000 * value:g}"]
        for split in ("fit", "held-out"):
            e = [x for p, x in zip(rows, ttft) if p["split"] == split]
            cells += [f"{statistics.median(abs(x) for x in e):.1f}%", f"{statistics.median(e):+.1f}%"]
        cells.append(f"{sum(abs(x) <= 15 for x in ttft)} of {len(ttft)}")
        cells.append(f"{statistics.median(pct(s[1], p['published']['tpot_ms']) for p, s in zip(rows, sims)):+.1f}%")
        for g in groups:
            cells.append(f"{statistics.median(x for p, x in zip(rows, ttft) if group_of(p) == g):+.0f}%")
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
