#!/bin/bash
# Re-runs the example sweeps of docs/analysts.md (scenarios/analyst/*.sweep.json) exactly as it says,
# and prints every figure its "Example sweeps" section quotes, from each sweep's
# summary.json: after a model change, one command gives the numbers to paste.
# Usage: scripts/analyst_figures.sh [build/tycoon] [out folder, default /tmp]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tycoon=${1:-$root/build/tycoon}
out=${2:-/tmp}
# The default CLI is built if missing (scripts/setup.sh; nothing when it is there).
if [ -z "${1:-}" ] && [ ! -x "$tycoon" ]; then "$root/scripts/setup.sh" >&2; else "$root/scripts/setup.sh" --no-build >&2; fi
mkdir -p "$out"
for name in qwen35-mi355x-vs-b200 price-for-40pct-margin margin-vs-traffic-shape; do
  # A fresh run each time (its timings are quoted): the previous run's journal would be refused
  # without --resume, and reused with it.
  rm -f "$out/$name/points.jsonl"
  start=$(date +%s.%N)
  "$tycoon" sweep "$root/scenarios/analyst/$name.sweep.json" --out "$out/$name" --jobs 2 --no-png >"$out/$name.txt" 2>/dev/null
  end=$(date +%s.%N)
  python3 - "$out/$name/summary.json" "$name" "$start" "$end" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
name, wall = sys.argv[2], float(sys.argv[4]) - float(sys.argv[3])
print(f"== {name}: {s['sweep']['num_points']} points, {wall:.1f} s wall")
def pm(e, scale=1, d=1):
    if e is None or e["mean"] is None: return "-"
    t = e.get("half_width_total")
    return f"{e['mean']*scale:.{d}f}" + (f" ± {t*scale:.{d}f}" if t is not None else "")
for op in s["operating_points"]:
    if not op["meets_target"]:
        print(f"  {op['series']}: no concurrency meets every target")
        for r in op["rejected_concurrencies"]: print(f"      misses: {r}")
        continue
    users = f"{op['concurrency']:.1f} (interpolated {op['between_concurrencies'][0]}-{op['between_concurrencies'][1]})" if op["interpolated_at_target"] else f"{op['concurrency']:.0f}"
    line = (f"  {op['series']}: {users} users, {pm(op['output_tok_per_s_per_gpu'])} tok/s/GPU, "
            f"P90 {pm(op['p90_tok_per_s_per_user'])} tok/s/user, ${pm(op['cost_output_only_usd_per_mtok'], 1, 2)}/Mtok output-only, "
            f"margin {pm(op['gross_margin'], 100)}%, failed {100*op['failed_share']:.1f}%, {op['provenance']}")
    p = op.get("price_for_target_margin")
    if p and p["output_usd_per_mtok"] is not None:
        line += f"; {100*s['target']['gross_margin']:.0f}% margin at ${p['output_usd_per_mtok']:.2f}/Mtok out"
    print(line)
    for r in op["rejected_concurrencies"]: print(f"      misses: {r}")
# Per workload at the highest concurrency: throughput and margin (the traffic-shape sweep).
if len({g["workload"] for g in s["groups"]}) > 1:
    top = max(g["concurrency"] for g in s["groups"])
    for g in s["groups"]:
        if g["concurrency"] == top and g["price"] == s["prices"][0]["name"]:
            m = g["metrics"]
            print(f"  {g['workload']} @{top}: {pm(m['output_tok_per_s_per_gpu'], 1, 0)} tok/s/GPU, "
                  f"margin {pm(m['gross_margin'], 100)}%, failed {100*g['failed_share']:.1f}%, {g['provenance']}")
PY
done
