#!/usr/bin/env bash
# CPU cost of our simulator vs the peer @doublewordai/inference-lab on one workload:
# one H200, Llama-3.1-8B bf16, random ~1k in / 1k out, closed loop of 64 users, N requests.
# Run from the repo root:  bench/peer/compare.sh [N ...]    (default N: 1000 2000 16000)
# Env: TYCOON (default build/tycoon), REPS (runs of ours per N, default 5),
#      PEER_REPS (runs of the peer per N, default 1), PEER_MAX_N (skip the peer above this N).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PEER="$ROOT/bench/peer"
TYCOON=${TYCOON:-$ROOT/build/tycoon}
REPS=${REPS:-5}
PEER_REPS=${PEER_REPS:-1}
PEER_MAX_N=${PEER_MAX_N:-1000000000}
NS=("$@"); [ ${#NS[@]} -eq 0 ] && NS=(1000 2000 16000)
OUT=${OUT:-$(mktemp -d)}
[ -d "$PEER/node_modules/@doublewordai/inference-lab" ] || (cd "$PEER" && npm ci --no-audit --no-fund >&2)

ours_args=(benchmark --hardware h200 --model llama-3.1-8b --engine vllm --precision bf16
           --workload random --arrival closed-loop --concurrency 64 --isl 1024 --osl 1024 --json
           --output-range-ratio 1 --warmup-requests 0)  # the peer's shape: fixed output, no warm-up

# Whole-process user+sys CPU of our CLI, mean of REPS runs. Same kernel rusage that
# /usr/bin/time -f "%U %S" prints, read via getrusage(RUSAGE_CHILDREN) to get more than
# its 10 ms of resolution. Prints "cpu_s simulated_s".
ours() {  # $1 = N
  python3 - "$REPS" "$TYCOON" "${ours_args[@]}" --num-requests "$1" <<'PY'
import json, resource, subprocess, sys
reps, cmd = int(sys.argv[1]), sys.argv[2:]
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
c0 = cpu(); out = None
for _ in range(reps):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
print(f"{(cpu() - c0) / reps:.6f} {json.loads(out)['simulated_time_s']:.3f}")
PY
}

# Startup alone (catalog load, argument parsing, one request).
read -r startup _ < <(ours 1)
echo "ours startup (--num-requests 1): ${startup} CPU s (mean of $REPS)" >&2
/usr/bin/time -f "ours N=1 under /usr/bin/time: %U user %S sys" "$TYCOON" "${ours_args[@]}" --num-requests 1 >/dev/null

ROWS="$OUT/rows.tsv"; : > "$ROWS"
for n in "${NS[@]}"; do
  read -r oc osim < <(ours "$n")
  if [ "$n" -le "$PEER_MAX_N" ]; then
    : > "$OUT/peer_$n.jsonl"
    for _ in $(seq "$PEER_REPS"); do (cd "$PEER" && node run_peer.mjs "$n") >> "$OUT/peer_$n.jsonl"; done
    read -r pc psim < <(python3 -c '
import json,sys
rs=[json.loads(l) for l in open(sys.argv[1])]
print(sum(r["cpu_s"] for r in rs)/len(rs), rs[-1]["simulated_s"])' "$OUT/peer_$n.jsonl")
  else
    pc=nan; psim=nan
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$pc" "$oc" "$psim" "$osim" >> "$ROWS"
done
python3 - "$ROWS" "$startup" <<'PY'
import math, sys
st = float(sys.argv[2])
def f(x, fmt): return "-" if math.isnan(x) else format(x, fmt)
hdr = ["N", "peer CPU s", "ours CPU s", "peer/ours", "peer/(ours-startup)",
       "peer sim s", "ours sim s", "peer sim s/CPU s", "ours sim s/CPU s"]
print("| " + " | ".join(hdr) + " |"); print("|" + "---|" * len(hdr))
for line in open(sys.argv[1]):
    n, pc, oc, ps, os_ = line.split("\t"); pc, oc, ps, os_ = map(float, (pc, oc, ps, os_))
    row = [n, f(pc, ".3f"), f(oc, ".4f"), f(pc / oc, ".0f"), f(pc / max(oc - st, 1e-9), ".0f"),
           f(ps, ".1f"), f(os_, ".1f"), f(ps / pc, ".0f"), f(os_ / oc, ".0f")]
    print("| " + " | ".join(row) + " |")
PY
echo "peer JSON lines in $OUT" >&2
