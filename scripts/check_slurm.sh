#!/bin/bash
# Runs docs/cluster/sweep-slurm.sh on a real Slurm cluster, not a simulation of one: starts a
# private single-node cluster (munged, slurmctld and slurmd as background processes of this script;
# key, sockets, config, state, spool and logs in one temporary folder; ports of their own; no
# systemd, nothing in /etc used), then
#   1. submits the script as it is with `sbatch --array=0-3` and the merge job with
#      `--dependency=afterok` and `--wrap "build/tycoon sweep merge ..."` as its header documents
#      (on scripts/check_cluster_jobs.sh's spec); the merged folder must equal one unsharded run
#      byte for byte;
#   2. a shard killed part way and run again: array task 0 of 2 is cancelled (`scancel`) once it
#      has journaled points, then requeued (`scontrol requeue`: the same task, the same array
#      environment); its log must say "resuming: K points already done" with K > 0, and the merge
#      must still equal the unsharded run.
# scripts/check_cluster_jobs.sh checks the job files without a cluster (as processes with
# SLURM_ARRAY_TASK_* set); this checks what only Slurm does: the array environment it sets, the
# #SBATCH options and --output names, the dependency, the requeue. Every daemon and job is stopped
# on exit, failed or not (and the check fails if anything of the cluster is still running then);
# on a failure the daemons' and jobs' logs are printed. About 30 s on 2 cores.
# Usage: scripts/check_slurm.sh [build/tycoon]   (TYCOON_SLURM_KEEP=1 keeps the temporary folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# What it needs: Slurm and MUNGE (Debian 12: Slurm 22.05), and the CLI (scripts/setup.sh builds
# the default build/; nothing when they are there).
source "$root/scripts/lib/need_cli.sh"
need_cli "${1:-}" slurm-wlm munge
slurm_script=$root/docs/cluster/sweep-slurm.sh
t0=$SECONDS

t=$(mktemp -d -t tycoon-slurm.XXXXXX)
chmod 755 "$t"  # munged: everyone may enter its socket's folder, only its owner may write there
export SLURM_CONF=$t/slurm.conf
daemons=()  # munged, slurmctld, slurmd: stopped in the reverse order
refs=()     # the unsharded runs, while they run

logs() {
  local d f
  for d in munged slurmctld slurmd; do  # the log, or what the daemon said before it had one
    f=$t/$d.log
    [ -s "$f" ] || f=$t/$d.out
    [ -s "$f" ] || continue
    echo "---- ${f#"$t"/} (last 40 lines)"
    tail -n 40 "$f"
  done
  for f in "$t"/work/tycoon-sweep-*.log "$t"/work/merge-*.log; do
    [ -s "$f" ] || continue
    echo "---- ${f#"$t"/} (last 40 lines)"
    tail -n 40 "$f"
  done
}
fail() {
  echo "FAIL check_slurm.sh: $*" >&2
  exit 1
}
cleanup() {
  local rc=$? i pid
  local -a left=()
  trap - EXIT
  set +e
  cd / || true
  if [ "$rc" != 0 ]; then
    echo "check_slurm.sh: failed after $((SECONDS - t0)) s; the cluster's logs ($SLURM_CONF):" >&2
    logs >&2
  fi
  # The jobs first, while slurmctld and slurmd run: a job's slurmstepd ends with its job.
  if [ -n "${ctld_pid:-}" ] && kill -0 "$ctld_pid" 2>/dev/null; then
    scancel --quiet --user=root 2>/dev/null
    for _ in $(seq 50); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for pid in "${refs[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    pid=${daemons[i]}
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  # What is left of the cluster: every process working in the temporary folder (the daemons
  # started there, a job's slurmstepd and tasks run there). None, or the check fails.
  for _ in $(seq 25); do
    mapfile -t left < <(find /proc -mindepth 2 -maxdepth 2 -name cwd \( -lname "$t" -o -lname "$t/*" \) 2>/dev/null |
      cut -d/ -f3)
    [ "${#left[@]}" = 0 ] && break
    sleep 0.2
  done
  if [ "${#left[@]}" != 0 ]; then
    echo "FAIL check_slurm.sh: still running after the cluster stopped (killed now):" >&2
    ps -o pid=,args= -p "$(IFS=,; echo "${left[*]}")" >&2
    kill -9 "${left[@]}" 2>/dev/null
    rc=1
  fi
  if [ "${TYCOON_SLURM_KEEP:-0}" = 1 ]; then echo "check_slurm.sh: kept $t" >&2; else rm -rf "$t"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Two free TCP ports for slurmctld and slurmd (a Slurm already on this machine keeps its own).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 / 2) }' /proc/meminfo)
mkdir -p "$t/munge" "$t/state" "$t/spool" "$t/work/build"
chmod 755 "$t/munge"

# The specs, and their unsharded runs (the references) while the daemons start. spec.json is
# scripts/check_cluster_jobs.sh's; resume.json takes several seconds a shard, so that a shard can
# be cancelled half way. Relative spec paths, as the jobs get them (the file name is part of the
# output). The documented merge command names build/tycoon (run from the repository root): the
# same here.
ln -s "$tycoon" "$t/work/build/tycoon"
cat >"$t/work/spec.json" <<'SPEC'
{"format_version": 1, "name": "cluster-check", "title": "cluster job check",
 "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm"},
 "axes": {"precision": ["bf16", "fp8"]},
 "workloads": [{"name": "short", "kind": "random", "input_tokens": 256, "output_tokens": 32}],
 "concurrency": [2, 4, 8], "seeds": [1, 2], "prices": [{"name": "market"}],
 "requests_per_user": 3, "target": {"min_p90_tok_per_s_per_user": 10, "gross_margin": 0.4}}
SPEC
cat >"$t/work/resume.json" <<'SPEC'
{"format_version": 1, "name": "resume-check", "title": "shard resume check",
 "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm"},
 "axes": {"precision": ["bf16", "fp8"]},
 "workloads": [{"name": "chat", "kind": "random", "input_tokens": 1024, "output_tokens": 2048}],
 "concurrency": [64, 128, 256],
 "seeds": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
           21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40],
 "prices": [{"name": "market"}],
 "requests_per_user": 16, "target": {"min_p90_tok_per_s_per_user": 10, "gross_margin": 0.4}}
SPEC
(cd "$t/work" && exec "$tycoon" sweep spec.json --out single --jobs 1 --no-png >single.log 2>&1) &
refs+=($!)
(cd "$t/work" && exec "$tycoon" sweep resume.json --out resume-single --jobs 1 --no-png >resume-single.log 2>&1) &
refs+=($!)

# MUNGE: a key of our own and a daemon on our own socket, in the foreground of its own process
# (-F: our child, stopped and reaped here). It runs as root, as slurmctld and slurmd do here.
dd if=/dev/urandom of="$t/munge.key" bs=1024 count=1 status=none
chmod 400 "$t/munge.key"
(cd "$t" && exec munged -F --socket="$t/munge/munge.sock" --key-file="$t/munge.key" --pid-file="$t/munged.pid" \
  --log-file="$t/munged.log" --seed-file="$t/munged.seed" >"$t/munged.out" 2>&1) &
daemons+=($!)
for _ in $(seq 50); do
  [ -S "$t/munge/munge.sock" ] && break
  kill -0 "${daemons[0]}" 2>/dev/null || fail "munged exited at start"
  sleep 0.1
done
munge -n -S "$t/munge/munge.sock" | unmunge -S "$t/munge/munge.sock" >/dev/null ||
  fail "munged does not answer on $t/munge/munge.sock"

# The smallest cluster: this machine as controller and as the one node, every CPU schedulable,
# CPUs not memory consumed (CR_CPU). cred_expire=10: a requeued job may start again 11 s after
# the requeue (the default, 120 s, is the wait Slurm imposes). The main scheduler every second,
# batch jobs started at once: a job waits for the node, not for the scheduler's next pass.
echo >"$t/plugstack.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=tycoon-check
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$t/munge/munge.sock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
PlugStackConfig=$t/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerParameters=batch_sched_delay=0,sched_interval=1
KillWait=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
(cd "$t" && exec slurmctld -D -c -i >"$t/slurmctld.out" 2>&1) &
ctld_pid=$!
daemons+=("$ctld_pid")
(cd "$t" && exec slurmd -D -c -N "$host" >"$t/slurmd.out" 2>&1) &
daemons+=($!)
state=
for _ in $(seq 150); do
  state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a daemon exited at start (pid $pid)"; done
  sleep 0.2
done
[ "$state" = idle ] || fail "node $host not idle after 30 s (state: '${state:-none}')"
echo "cluster up in $((SECONDS - t0)) s: $(sinfo -V), node $host, $cpus CPUs, ports $ctld_port/$slurmd_port"

# wait_done JOB SECONDS: until no task of JOB is pending or running; then every task must have
# COMPLETED (exit 0). A dependency that can never be met fails at once.
wait_done() {
  local job=$1 limit=$2 start=$SECONDS left states bad
  while left=$(squeue -h -j "$job" -o '%i %T %r') && [ -n "$left" ]; do
    if grep -q DependencyNeverSatisfied <<<"$left"; then fail "job $job: dependency never satisfied: $left"; fi
    [ $((SECONDS - start)) -lt "$limit" ] || fail "job $job not done after $limit s: $left"
    sleep 0.2
  done
  states=$(scontrol -o show job "$job") || fail "job $job: scontrol knows it no more"
  bad=$(tr ' ' '\n' <<<"$states" | awk -F= '$1 == "JobId" { id = $2 } $1 == "ArrayTaskId" { id = id " (task " $2 ")" }
    $1 == "JobState" { st = $2 } $1 == "ExitCode" && st != "COMPLETED" { printf "JobId=%s %s ExitCode=%s; ", id, st, $2 }')
  [ -z "$bad" ] || fail "job $job did not complete: $bad"
}
# same FOLDER REFERENCE: every output file of one run, byte for byte.
same() {
  local f status=0
  for f in points.csv operating_points.csv summary.json pareto.svg cost_vs_interactivity.svg ttft_vs_throughput.svg margin_vs_price.svg; do
    cmp -s "$2/$f" "$1/$f" || { echo "FAIL check_slurm.sh: $1/$f differs from the unsharded run's" >&2; status=1; }
  done
  return "$status"
}

cd "$t/work"
# The node's size, not the script's #SBATCH --cpus-per-task=8 --mem=8G (the command line wins).
fit=(--cpus-per-task=1 --mem=100M)

# 1. The array as documented, 4 shards instead of 8.
export SWEEP_SPEC=spec.json SWEEP_PARTS=$t/work/sweeps/parts TYCOON=$tycoon
jid=$(sbatch --parsable --array=0-3 "${fit[@]}" "$slurm_script")
mid=$(sbatch --parsable --dependency=afterok:"$jid" --output=merge-%j.log --wrap \
  "build/tycoon sweep merge $SWEEP_PARTS/part-*-of-4.json --out sweeps/cluster-check --no-png")
wait_done "$jid" 60
wait_done "$mid" 60
for i in 0 1 2 3; do
  grep -q "shard $i/4: 3 of 12 points" "tycoon-sweep-${jid}_$i.log" ||
    fail "array task $i: no 'shard $i/4' in tycoon-sweep-${jid}_$i.log (the script's --output name)"
done
wait "${refs[0]}" || fail "the unsharded run of spec.json failed: $(cat single.log)"
same sweeps/cluster-check single || fail "the Slurm array's merge differs from one run"
echo "Slurm array OK: job $jid (4 tasks, shards 0-3/4) and merge job $mid (afterok) byte-identical to one run ($((SECONDS - t0)) s)"

# 2. A shard cancelled part way, then requeued: Slurm runs the same array task again with the same
# SLURM_ARRAY_TASK_* (so the script runs the same `--shard 0/2`), its log appended to.
parts=$t/work/sweeps/resume-parts
journal=$parts/part-0-of-2.journal.jsonl
rid=$(SWEEP_SPEC=resume.json SWEEP_PARTS=$parts sbatch --parsable --array=0-1 "${fit[@]}" --open-mode=append "$slurm_script")
log=tycoon-sweep-${rid}_0.log
start=$SECONDS
until [ "$(wc -l 2>/dev/null <"$journal" || echo 0)" -ge 3 ]; do
  [ ! -e "$parts/part-0-of-2.json" ] || fail "shard 0 of job $rid finished before it could be cancelled"
  [ $((SECONDS - start)) -lt 60 ] || fail "no journal of shard 0 (job $rid) with 3 points after 60 s: $journal"
  sleep 0.1
done
scancel "${rid}_0"
start=$SECONDS
while [ -n "$(squeue -h -j "${rid}_0" -o %T)" ]; do
  [ $((SECONDS - start)) -lt 30 ] || fail "task ${rid}_0 still in the queue 30 s after scancel"
  sleep 0.1
done
state=$(scontrol -o show job "${rid}_0" | grep -o 'JobState=[A-Z_]*')
[ "$state" = JobState=CANCELLED ] || fail "task ${rid}_0 after scancel: $state (expected CANCELLED)"
[ ! -e "$parts/part-0-of-2.json" ] || fail "shard 0 of job $rid wrote its part although cancelled"
journaled=$(wc -l <"$journal")
scontrol requeue "${rid}_0"
wait_done "$rid" 90
resumed=$(sed -n 's/.*shard 0\/2: .*resuming: \([0-9]*\) points already done.*/\1/p' "$log")
[[ $resumed =~ ^[1-9][0-9]*$ ]] ||
  fail "the requeued shard did not resume: no 'shard 0/2: ... resuming: K points already done' with K > 0 in $log"
[ ! -e "$journal" ] || fail "shard 0's journal is still there after its part was written"
# The merge depends on the two tasks by name: on Slurm 22.05 `afterok:ARRAY` is never satisfied
# once a task of the array was cancelled, even after it was requeued and completed.
rmid=$(sbatch --parsable --dependency=afterok:"${rid}_0:${rid}_1" --output=merge-%j.log --wrap \
  "build/tycoon sweep merge $parts/part-*-of-2.json --out sweeps/resume-check --no-png")
wait_done "$rmid" 60
wait "${refs[1]}" || fail "the unsharded run of resume.json failed: $(cat resume-single.log)"
refs=()
same sweeps/resume-check resume-single || fail "the merge after a cancelled and resumed shard differs from one run"
echo "shard resume OK: task ${rid}_0 cancelled with $journaled points journaled, requeued, resumed $resumed of 120; merge job $rmid byte-identical to one run ($((SECONDS - t0)) s)"
