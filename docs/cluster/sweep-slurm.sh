#!/bin/bash
# One `tycoon sweep` split over a Slurm job array: array task i of n runs
#   tycoon sweep SPEC --shard i/n --out PARTS
# and writes PARTS/part-i-of-n.json; a job that depends on the whole array merges the parts into
# exactly what one unsharded run writes (docs/analysts.md, "Sweeps on a cluster").
#
# Submit (from the repository root, on a shared file system; 8 shards here):
#   export SWEEP_SPEC=scenarios/analyst/price-for-40pct-margin.sweep.json SWEEP_PARTS=$PWD/sweeps/price-parts
#   jid=$(sbatch --parsable --array=0-7 docs/cluster/sweep-slurm.sh)
#   sbatch --dependency=afterok:"$jid" --wrap \
#     "build/tycoon sweep merge $SWEEP_PARTS/part-*-of-8.json --out sweeps/price-for-40pct-margin"
#
# A failed or cancelled task is rerun alone, and resumes from the points it journaled
# (PARTS/part-i-of-n.journal.jsonl): `scontrol requeue <jobid>_3` keeps the array's range, or a new
# submission names the shard count, its task id then being the shard index:
#   SWEEP_SHARDS=8 sbatch --array=3 docs/cluster/sweep-slurm.sh
# A cancelled or failed task leaves the merge's `afterok` unmet for good: once every shard has its
# part, submit the merge again by hand (the command above, without --dependency). Two copies of one
# shard at once are refused (exit 2; each shard locks PARTS/.part-i-of-n.json.lock).
# Shards are independent and each part file is written atomically at the end of its task. `merge`
# refuses a missing or duplicated shard (exit 2), so a partial array never passes for a whole sweep.
#SBATCH --job-name=tycoon-sweep
#SBATCH --cpus-per-task=8
#SBATCH --mem=8G
#SBATCH --time=02:00:00
#SBATCH --output=tycoon-sweep-%A_%a.log
set -euo pipefail

: "${SWEEP_SPEC:?set SWEEP_SPEC to the sweep spec file}"
: "${SWEEP_PARTS:?set SWEEP_PARTS to a folder every node can write (the part files go there)}"
: "${SLURM_ARRAY_TASK_ID:?not a job array task: submit with sbatch --array=0-(N-1)}"
TYCOON=${TYCOON:-build/tycoon}

if [ -n "${SWEEP_SHARDS:-}" ]; then
  # One task of a split in SWEEP_SHARDS (a rerun): the task id is the shard index.
  index=$SLURM_ARRAY_TASK_ID
  count=$SWEEP_SHARDS
else
  # The whole array: shards count from 0 whatever its first index (--array=1-8 works as 0-7).
  first=${SLURM_ARRAY_TASK_MIN:-0}
  last=${SLURM_ARRAY_TASK_MAX:-$((first + ${SLURM_ARRAY_TASK_COUNT:?} - 1))}
  index=$((SLURM_ARRAY_TASK_ID - first))
  count=$((last - first + 1))
fi

mkdir -p "$SWEEP_PARTS"
exec "$TYCOON" sweep "$SWEEP_SPEC" --shard "$index/$count" --out "$SWEEP_PARTS" --jobs "${SLURM_CPUS_PER_TASK:-1}"
