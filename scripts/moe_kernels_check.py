#!/usr/bin/env python3
"""The simulator's routed-expert op against the engines' own MoE kernels, as NVIDIA aiconfigurator
publishes them (calibration/published/moe_kernels.json; docs/fidelity.md, "The engines' own MoE kernels").

    scripts/moe_kernels_check.py [--tycoon build/tycoon] [--kernels calibration/published/moe_kernels.json]
        [--gpu b200] [--engine vllm] [--model gpt-oss-120b] [--latest] [--detail]

For every published series (GPU, engine, engine version, model, weight format, tensor/expert
split) and every token count it measured, `tycoon predict` prices one step of that many tokens
(a decode batch of that size on the same split) and the time of its `moe_experts` op class (the
grouped expert GEMMs, their activation and the combine; the router GEMM and the top-k bookkeeping
are `moe_shared`) is divided by the model's MoE layers. Printed: per series, the median ratio
ours / published over the decode sizes (1-256 tokens) and over the prefill sizes (1,024 tokens
and more), and with --detail every token count. Nothing is fitted here: the check shows where the
chip's expert curves (measured on the H200 with this project's kernels, lent to or fitted for
other chips) and the engines' kernels part.
"""
import argparse
import json
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The weight format of a published series -> this project's --precision for that model.
PRECISION = {"w4a16_mxfp4": "fp4", "w4a8_mxfp4_mxfp8": "fp4", "fp8_block": "fp8", "nvfp4": "fp4"}


def moe_layers(model):
    card = json.loads((ROOT / "models" / f"{model}.json").read_text())
    return sum(g["count"] for g in card["layer_groups"] if g.get("ffn", {}).get("kind") == "moe")


def ours_ms(tycoon, s, n, layers):
    tp = s["moe_tp"] * s["moe_ep"]
    args = [tycoon, "predict", "--hardware", s["gpu"], "--model", s["model"], "--engine", s["engine"],
            "--precision", PRECISION[s["moe_dtype"]], "--tp", str(tp), "--decode-batch", str(n), "--context", "1", "--json"]
    if s["moe_ep"] > 1:
        args += ["--ep", str(s["moe_ep"])]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
    return json.loads(out.stdout)["breakdown_s"].get("moe_experts", 0.0) * 1e3 / layers, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--kernels", default=str(ROOT / "calibration" / "published" / "moe_kernels.json"))
    ap.add_argument("--gpu")
    ap.add_argument("--engine")
    ap.add_argument("--model")
    ap.add_argument("--latest", action="store_true", help="only each GPU, engine, model and format's newest version")
    ap.add_argument("--detail", action="store_true", help="every token count of every series")
    a = ap.parse_args()
    if not Path(a.tycoon).exists():
        print(f"moe_kernels_check.py: {a.tycoon} not found (cmake --build build --target tycoon)", file=sys.stderr)
        return 2
    doc = json.loads(Path(a.kernels).read_text())
    series = [s for s in doc["series"] if (not a.gpu or s["gpu"] == a.gpu) and (not a.engine or s["engine"] == a.engine)
              and (not a.model or s["model"] == a.model)]
    if a.latest:
        def version_key(v):
            return [int(p) if p.isdigit() else p for p in v.replace("rc", ".rc.").replace(".post", ".post.").split(".")]
        newest = {}
        for s in series:
            k = (s["gpu"], s["engine"], s["model"], s["moe_dtype"])
            newest[k] = max(newest.get(k, s["engine_version"]), s["engine_version"], key=version_key)
        series = [s for s in series if s["engine_version"] == newest[(s["gpu"], s["engine"], s["model"], s["moe_dtype"])]]
    layers = {m: moe_layers(m) for m in {s["model"] for s in series}}
    jobs = [(s, n, ms) for s in series for n, ms in s["tokens_ms"]]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda j: ours_ms(a.tycoon, j[0], j[1], layers[j[0]["model"]]), jobs))
    print("| GPU | engine | version | model | weights | kernel | TP x EP | decode (1-256 tokens): ours / published | "
          "prefill (1,024+ tokens): ours / published | at 256 tokens: published, ours (ms) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    detail = []
    i = 0
    for s in series:
        dec, pre, at256, refused = [], [], None, None
        for n, pub in s["tokens_ms"]:
            ours, err = results[i]
            i += 1
            if err:
                refused = err
                continue
            r = ours / pub
            (dec if n <= 256 else pre if n >= 1024 else []).append(r)
            if n == 256:
                at256 = (pub, ours)
            detail.append((s, n, pub, ours))
        fmt = lambda v: f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "—"
        split = f"{s['moe_tp']} x {s['moe_ep']}"
        last = f"{at256[0]:.3f}, {at256[1]:.3f}" if at256 else (f"refused: {refused}" if refused else "—")
        print(f"| {s['gpu']} | {s['engine']} | {s['engine_version']} | {s['model']} | {s['moe_dtype']} | {s['kernel_source']} | "
              f"{split} | {fmt(dec)} | {fmt(pre)} | {last} |")
    if a.detail:
        print()
        print("| GPU | engine | version | model | weights | TP x EP | tokens | published (ms) | ours (ms) | ours / published |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for s, n, pub, ours in detail:
            print(f"| {s['gpu']} | {s['engine']} | {s['engine_version']} | {s['model']} | {s['moe_dtype']} | "
                  f"{s['moe_tp']} x {s['moe_ep']} | {n} | {pub:.4f} | {ours:.4f} | {ours / pub:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
