#!/bin/bash
# Checks the cluster job files in docs/cluster/ without a cluster: shellcheck and bash -n on the
# Slurm script, the Kubernetes manifest against the API's JSON schemas and a shape check of it,
# the image's Containerfile against this machine's Debian (tests/k8s/check_containerfile.py: no
# container engine runs here), then runs each file's own command locally as the scheduler would
# (SLURM_ARRAY_TASK_* / JOB_COMPLETION_INDEX set, 4 shards as parallel processes; the manifest's
# in a copy of exactly what the Containerfile copies), merges the parts with `tycoon sweep merge`
# and compares the result with one unsharded run, byte for byte.
# Usage: scripts/check_cluster_jobs.sh [build/tycoon]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# What it needs: PyYAML for the manifest, and the CLI (scripts/setup.sh builds the default build/;
# nothing when they are there).
source "$root/scripts/lib/need_cli.sh"
need_cli "${1:-}" python3-yaml nodejs
slurm=$root/docs/cluster/sweep-slurm.sh
k8s=$root/docs/cluster/sweep-k8s-job.yaml
containerfile=$root/docs/cluster/Containerfile
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

if command -v shellcheck >/dev/null; then shellcheck "$slurm"; else echo "note: no shellcheck"; fi
bash -n "$slurm"

# The manifest against the Kubernetes API's own JSON schemas (tests/k8s/validate.mjs: every field's
# type and allowed values, as the API server checks them; a field it does not know is not caught),
# with its npm packages at the versions the lock pins.
if [ ! -d "$root/tests/k8s/node_modules" ] || [ "$root/tests/k8s/package-lock.json" -nt "$root/tests/k8s/node_modules" ]; then
  (cd "$root/tests/k8s" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
node "$root/tests/k8s/validate.mjs" "$k8s" >/dev/null

# `tycoon export` of level 1's operating point: its manifest against the same schemas, and every
# flag of its vLLM command among the arguments vLLM documents at the version the facts name
# (hardware_db/engines/launch/vllm.json, each list with its source).
"$tycoon" export --scenario campaign/01-thin-margin --concurrency 64 --out "$t/export" >/dev/null
node "$root/tests/k8s/validate.mjs" "$t/export/deployment.yaml" >/dev/null
python3 - "$t/export/export.json" "$root/hardware_db/engines/launch/vllm.json" <<'PY'
import json, sys
export, facts = (json.load(open(p)) for p in sys.argv[1:3])
documented = set(facts["arguments"])
for c in export["commands"]:
    argv = c["argv"][len(facts["server_command"]):]
    flags = [a for a in argv if a.startswith("-")]
    bad = [f for f in flags if f not in documented]
    assert flags and not bad, f"undocumented vLLM {facts['checked_version']} flags: {bad}"
PY

# The manifest: an Indexed Job whose SHARDS matches completions, and a merge Job over the same volume.
python3 - "$k8s" >"$t/k8s-shard-cmd" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
kinds = [d["kind"] for d in docs]
assert kinds == ["PersistentVolumeClaim", "Job", "Job"], kinds
job, merge = docs[1]["spec"], docs[2]["spec"]
assert job["completionMode"] == "Indexed"
c = job["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert int(env["SHARDS"]) == job["completions"], (env["SHARDS"], job["completions"])
mc = merge["template"]["spec"]["containers"][0]
assert {e["name"]: e["value"] for e in mc["env"]}["SHARDS"] == env["SHARDS"]
assert c["volumeMounts"][0]["mountPath"] == mc["volumeMounts"][0]["mountPath"] == "/parts"
assert docs[1]["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == docs[0]["metadata"]["name"]
print(c["args"][0])
print(mc["args"][0])
print(env["SWEEP_SPEC"])
PY
shard_cmd=$(sed -n 1p "$t/k8s-shard-cmd")
merge_cmd=$(sed -n 2p "$t/k8s-shard-cmd")
manifest_spec=$(sed -n 3p "$t/k8s-shard-cmd")

# The image: its packages in bookworm, its libraries from them or the base, its COPY sources there,
# its paths those of the manifest; then exactly what it copies laid out in $t/image as the image's
# / (failures printed, the layout made all the same). The manifest's commands run there below,
# with the image's TYCOON_DATA, so that a data folder the COPYs miss fails them.
image_ok=1
python3 "$root/tests/k8s/check_containerfile.py" "$containerfile" "$k8s" "$root" "$tycoon" "$t/image" \
  >"$t/image-paths" || image_ok=0
image_workdir=$(sed -n 1p "$t/image-paths")
image_data=$(sed -n 2p "$t/image-paths")

cat >"$t/spec.json" <<'SPEC'
{"format_version": 1, "name": "cluster-check", "title": "cluster job check",
 "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm"},
 "axes": {"precision": ["bf16", "fp8"]},
 "workloads": [{"name": "short", "kind": "random", "input_tokens": 256, "output_tokens": 32}],
 "concurrency": [2, 4, 8], "seeds": [1, 2], "prices": [{"name": "market"}],
 "requests_per_user": 3, "target": {"min_p90_tok_per_s_per_user": 10, "gross_margin": 0.4}}
SPEC
cd "$t"
"$tycoon" sweep spec.json --out single --jobs 1 --no-png >/dev/null 2>&1

# Slurm: the array --array=1-4 (a first index other than 0 on purpose), each task a process; its
# last task as the header's rerun of one shard instead (SWEEP_SHARDS=4 sbatch --array=3: an array
# of one task).
for id in 1 2 3; do
  SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 SLURM_CPUS_PER_TASK=1 \
    SWEEP_SPEC=spec.json SWEEP_PARTS=slurm-parts TYCOON=$tycoon bash "$slurm" >/dev/null 2>&1 &
done
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=3 SLURM_ARRAY_TASK_MAX=3 SLURM_CPUS_PER_TASK=1 SWEEP_SHARDS=4 \
  SWEEP_SPEC=spec.json SWEEP_PARTS=slurm-parts TYCOON=$tycoon bash "$slurm" >/dev/null 2>&1 &
wait
"$tycoon" sweep merge slurm-parts/part-*-of-4.json --out slurm-merged --no-png >/dev/null

# Kubernetes: the manifest's own shard and merge commands in the image's layout ($t/image, its
# WORKDIR and TYCOON_DATA mapped there), /parts mapped here. First its own spec, one point of it
# (SHARDS large enough that shard 0 is one point): the spec and the catalog the image holds.
if ! (cd "$image_workdir" && TYCOON_DATA=$image_data JOB_COMPLETION_INDEX=0 SHARDS=100000 \
  SWEEP_SPEC=$manifest_spec sh -c "${shard_cmd//\/parts/$t/k8s-own-parts}" >"$t/k8s-own.log" 2>&1); then
  echo "FAIL image: the manifest's shard command ($manifest_spec, one point) fails in a copy of what" \
    "docs/cluster/Containerfile copies ($image_workdir, TYCOON_DATA=$image_data):"
  tail -5 "$t/k8s-own.log"
  exit 1
fi
cp spec.json "$image_workdir/"
for i in 0 1 2 3; do
  (cd "$image_workdir" && TYCOON_DATA=$image_data JOB_COMPLETION_INDEX=$i SHARDS=4 SWEEP_SPEC=spec.json \
    sh -c "${shard_cmd//\/parts/$t/k8s-parts}" >/dev/null 2>&1) &
done
wait
(cd "$image_workdir" && TYCOON_DATA=$image_data SHARDS=4 sh -c "${merge_cmd//\/parts/$t/k8s-parts}" >/dev/null)

status=0
for f in points.csv operating_points.csv summary.json pareto.svg cost_vs_interactivity.svg ttft_vs_throughput.svg margin_vs_price.svg; do
  cmp -s "single/$f" "slurm-merged/$f" || { echo "FAIL Slurm array: merged $f differs from the single run"; status=1; }
  cmp -s "single/$f" "k8s-parts/merged/$f" || { echo "FAIL Indexed Job: merged $f differs from the single run"; status=1; }
done
[ "$image_ok" = 1 ] || { echo "FAIL image: docs/cluster/Containerfile (the failures above)"; status=1; }
[ "$status" = 0 ] && echo "cluster jobs OK: Slurm array (4 tasks) and Indexed Job (4 pods, in the Containerfile's layout) merge byte-identical to one run"
exit "$status"
