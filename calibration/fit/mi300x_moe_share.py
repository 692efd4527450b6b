#!/usr/bin/env python3
"""Seed 000's two stock-MI300X facts against each other (docs/calibration.md, "Seed 000's ordering").

Seed 000 says of stock vLLM 0.20.2 serving GPT-OSS-120B on one MI300X: profiling showed the
mixture-of-experts step taking "about 80% of GPU kernel time" (section 7), and at low load the H200
was "up to 40% faster" per GPU (section 9.1). Our MI300X (fitted-to-published levels, vLLM's AMD
kernel efficiency) puts the MoE share near 43% and the H200 1.01-1.09x ahead. This script asks
what one mechanism would give both: the routed-expert kernels of that path reaching only a share
of the chip's expert curves. It copies the data root to a temporary folder, multiplies the MI300X
profile's grouped-expert curves (moe_compute_eff_*, moe_memory_eff) by each --scale, runs seed
000's AgentX loads on the H200 and the MI300X with `tycoon benchmark` (AgentX's current timing,
EAGLE-3 k=3 at acceptance 2.31, one hour after ten minutes of warm-up, seed 1), and prints per load:
both chips' output tok/s/GPU and its ratio, the MoE share of each chip's GPU time
(moe_experts + moe_shared over every op class), P90 tok/s/user, and the requests over the loads
against the seed's 6,514 (H200) and 6,151 (stock MI300X).

    python3 calibration/fit/mi300x_moe_share.py [--tycoon build/tycoon] [--scale 1 0.2] [--loads 1,2,4,8,12,16,20]

Nothing in the repository changes. About 10 s per scale on two cores.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOE_CURVES = ("moe_compute_eff_bf16", "moe_compute_eff_fp4", "moe_compute_eff_fp8", "moe_memory_eff")
SEED_REQUESTS = {"h200": 6514, "mi300x": 6151}


def data_root_with_scale(scale: float, where: Path) -> Path:
    """A copy of the data the CLI reads (hardware_db/ copied, the rest linked) with the MI300X's
    expert curves multiplied by `scale`."""
    root = where / f"scale_{scale:g}"
    root.mkdir()
    for entry in ROOT.iterdir():
        if entry.name == "hardware_db":
            shutil.copytree(entry, root / "hardware_db")
        elif entry.name in ("models", "scenarios", "calibration"):
            os.symlink(entry, root / entry.name)
    profile = root / "hardware_db" / "calibrated" / "mi300x.json"
    p = json.loads(profile.read_text())
    for key in MOE_CURVES:
        p[key] = [[x, y * scale] for x, y in p[key]]
    p["source"] = f"{p['source']} (experts x{scale:g}: calibration/fit/mi300x_moe_share.py)"
    profile.write_text(json.dumps(p))
    return root


def agentx(tycoon: str, root: Path, chip: str, users: int) -> dict:
    args = [tycoon, "benchmark", "--hardware", chip, "--model", "gpt-oss-120b", "--engine", "vllm", "--precision", "fp4",
            "--tp", "1", "--workload", "agentic-coding", "--spec-tokens", "3", "--acceptance", "2.31", "--concurrency",
            str(users), "--warmup-s", "600", "--duration-s", "4200", "--seed", "1", "--json"]
    res = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, TYCOON_DATA=str(root)))
    if res.returncode != 0:
        sys.exit(f"mi300x_moe_share.py: {' '.join(args)} failed: {res.stderr.strip()}")
    return json.loads(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tycoon", default=str(ROOT / "build" / "tycoon"))
    ap.add_argument("--scale", type=float, nargs="+", default=[1.0, 0.2])
    ap.add_argument("--loads", default="1,2,4,8,12,16,20")
    a = ap.parse_args()
    loads = [int(x) for x in a.loads.split(",")]
    if any(s <= 0 for s in a.scale) or any(c < 1 for c in loads):
        sys.exit("mi300x_moe_share.py: --scale must be > 0 and --loads >= 1")
    with tempfile.TemporaryDirectory() as tmp:
        for scale in a.scale:
            root = data_root_with_scale(scale, Path(tmp))
            print(f"MI300X expert curves x{scale:g}")
            print("  users  H200 tok/s/GPU  MI300X  H200/MI300X  MoE share H200  MI300X  P90 tok/s/user H200  MI300X")
            requests = {"h200": 0, "mi300x": 0}
            for c in loads:
                r = {chip: agentx(a.tycoon, root, chip, c) for chip in ("h200", "mi300x")}
                share = {}
                for chip, out in r.items():
                    t = out["time_by_op_s"]
                    share[chip] = (t.get("moe_experts", 0) + t.get("moe_shared", 0)) / sum(t.values())
                    requests[chip] += out["requests_arrived"]
                h, m = r["h200"]["output_tok_per_s_per_gpu"], r["mi300x"]["output_tok_per_s_per_gpu"]
                print(f"  {c:5d}  {h:14.1f}  {m:6.1f}  {h / m:11.2f}  {share['h200']:14.2f}  {share['mi300x']:6.2f}"
                      f"  {r['h200']['p90_interactivity_tok_per_s_per_user']:19.0f}"
                      f"  {r['mi300x']['p90_interactivity_tok_per_s_per_user']:6.0f}")
            print(f"  requests over the loads: H200 {requests['h200']:,} (seed {SEED_REQUESTS['h200']:,}), "
                  f"MI300X {requests['mi300x']:,} (seed {SEED_REQUESTS['mi300x']:,}); MI300X/H200 "
                  f"{requests['mi300x'] / requests['h200']:.3f} (seed {SEED_REQUESTS['mi300x'] / SEED_REQUESTS['h200']:.3f})")


if __name__ == "__main__":
    main()
