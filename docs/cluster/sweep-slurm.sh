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
# A failed task is rerun alone (`sbatch --array=3 docs/cluster/sweep-slurm.sh`): shards are
# independent and each part file is written atomically at the end of its task. `merge` refuses a
# missing or duplicated shard (exit 2), so a partial array never passes for a whole sweep.
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

# Shards count from 0 whatever the array's first index: --array=1-8 works as well as 0-7.
first=${SLURM_ARRAY_TASK_MIN:-0}
last=${SLURM_ARRAY_TASK_MAX:-$((first + ${SLURM_ARRAY_TASK_COUNT:?} - 1))}
index=$((SLURM_ARRAY_TASK_ID - first))
count=$((last - first + 1))

mkdir -p "$SWEEP_PARTS"
exec "$TYCOON" sweep "$SWEEP_SPEC" --shard "$index/$count" --out "$SWEEP_PARTS" --jobs "${SLURM_CPUS_PER_TASK:-1}"
