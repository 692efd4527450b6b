#!/bin/bash
# The analysts' questions, asked twice: each example sweep as written, then with twice the requests
# per point (requests_per_user, min_requests and max_requests doubled). A pick that moves by more
# than its reported interval when the run is longer was a short run's artefact, not an answer.
# Prints one line per series (pick, users, tok/s/GPU and cost per Mtok output, both runs) and exits 1
# when a pick moves beyond its interval or lacks its label (interpolated / grid, marginal).
# Usage: scripts/check_analyst_picks.sh [build/tycoon] [SPEC...]   (default: the questions' sweeps)
# Takes minutes: not part of scripts/test; docs/analysts.md quotes its output.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tycoon=$(realpath "${1:-$root/build/tycoon}")
shift || true
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  specs=("$root/scenarios/analyst/price-for-40pct-margin.sweep.json"
    "$root/scenarios/analyst/gpt-oss-chat-ttft.sweep.json"
    "$root/scenarios/analyst/margin-vs-traffic-shape.sweep.json"
    "$root/scenarios/analyst/llama70b-xpyd-8xh200.sweep.json")
fi
jobs=${JOBS:-2}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
status=0
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .sweep.json)
  # The doubled spec: every request count of the point twice as large (the defaults where unset:
  # 10 requests per user, no minimum, no cap).
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["name"] = s["name"] + "-x2"
s["requests_per_user"] = 2 * s.get("requests_per_user", 10)
if s.get("min_requests"): s["min_requests"] = 2 * s["min_requests"]
if s.get("max_requests"): s["max_requests"] = 2 * s["max_requests"]
json.dump(s, open(sys.argv[2], "w"), indent=2)
' "$spec" "$t/$name-x2.sweep.json"
  "$tycoon" sweep "$spec" --out "$t/$name" --jobs "$jobs" --no-png --yes >/dev/null 2>"$t/$name.err" ||
    { echo "$name: the sweep failed: $(tail -1 "$t/$name.err")"; status=1; continue; }
  "$tycoon" sweep "$t/$name-x2.sweep.json" --out "$t/$name-x2" --jobs "$jobs" --no-png --yes --allow-long-run \
    >/dev/null 2>"$t/$name-x2.err" ||
    { echo "$name x2: the sweep failed: $(tail -1 "$t/$name-x2.err")"; status=1; continue; }
  python3 - "$name" "$t/$name/summary.json" "$t/$name-x2/summary.json" <<'PY' || status=1
import json, sys
name, a, b = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
ops_b = {o["series"]: o for o in b["operating_points"]}
bad = 0
print(f"{name}:")
for o in a["operating_points"]:
    s = o["series"]
    p = ops_b.get(s)
    if not o["meets_target"] or not p or not p["meets_target"]:
        met = (o["meets_target"], bool(p and p["meets_target"]))
        if met[0] != met[1]:
            print(f"  MOVED {s}: meets the targets {met[0]} at 1x, {met[1]} at 2x"); bad += 1
        else:
            print(f"  {s}: no operating point either way")
        continue
    if not o.get("pick"):
        print(f"  UNLABELLED {s}"); bad += 1
    line = f"  {s}: {o['pick']} | 2x: {p['pick']}"
    for m, fmt in (("concurrency", None), ("output_tok_per_s_per_gpu", 1), ("cost_output_only_usd_per_mtok", 3)):
        if m == "concurrency":
            line += f" | users {o[m]:.1f} -> {p[m]:.1f}"
            continue
        ea, eb = o[m], p[m]
        ha, hb = ea.get("half_width_total") or 0, eb.get("half_width_total") or 0
        move = abs(ea["mean"] - eb["mean"])
        ok = move <= max(ha, hb)
        line += f" | {m} {ea['mean']:.{fmt}f}±{ha:.{fmt}f} -> {eb['mean']:.{fmt}f}±{hb:.{fmt}f}" + ("" if ok else " MOVED")
        if not ok: bad += 1
    print(line)
sys.exit(1 if bad else 0)
PY
done
exit $status
