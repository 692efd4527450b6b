#!/usr/bin/env bash
# Published serving measurements against `tycoon benchmark` (docs/fidelity_published.md).
#
#   scripts/fidelity_published.sh [BUILD_DIR] [OUT_DIR] [POINTS_FILE]
#
# Reads every point of POINTS_FILE (default calibration/published/serving_points.json; the MoE
# and 70B groups of issue 34 are calibration/published/serving_points_moe.json): measured TTFT
# and TPOT with their source, runs the same configuration through `tycoon benchmark` (JSON per point in
# OUT_DIR, default BUILD_DIR/fidelity_published/), and prints the markdown table: published and
# simulated TTFT and TPOT, the error of each, the median and worst absolute error per metric, and
# the median signed error of each group (model, GPU, engine).
# A point marked not_steady_state (a published mean that is not a steady-state figure, and why) is
# shown, marked, and left out of the medians, which are then also given with it.
# With FIDELITY_REUSE=1 a point whose JSON is already there, run with the same arguments, is not run again. With
# FIDELITY_OUTPUT_RANGE_RATIO=R every point's output lengths are drawn in [R, 1] x OSL instead of
# the client's default (the input's 0.8): a sensitivity, R = 1 being exact output lengths, under
# which closed-loop users finish together and send their next prompts in waves. Needs jq and awk.
# Every run is seeded (--seed 1), so the table is reproducible to the digit. Fitted to some of
# these values: the B200's levels (calibration/fit/fit_published.py, its B200 vLLM points) and
# vLLM's Marlin shares (calibration/fit/fit_engine_w4a16.py, the points run with Marlin); both
# fits hold every third of their points out and report those. A point the simulator refuses is listed with the reason.
set -euo pipefail

build=${1:-build}
out=${2:-$build/fidelity_published}
root=$(cd "$(dirname "$0")/.." && pwd)
points=${3:-$root/calibration/published/serving_points.json}
tycoon="$build/tycoon"
# What it needs: jq, and the CLI (scripts/setup.sh installs jq and builds the default build/;
# nothing when they are there).
if [[ ! -x $tycoon && $(realpath -m "$build") == "$root/build" ]]; then
  "$root/scripts/setup.sh" --with jq >&2
else
  "$root/scripts/setup.sh" --no-build --with jq >&2
fi
[[ -x $tycoon ]] || { echo "fidelity_published.sh: $tycoon not found (build it: cmake --build $build --target tycoon)" >&2; exit 2; }
[[ -s $points ]] || { echo "fidelity_published.sh: $points missing" >&2; exit 2; }
mkdir -p "$out"

n=$(jq '.points | length' "$points")
echo "running $n published points (JSON in $out/) ..." >&2
refused=()
rows=()
for ((i = 0; i < n; ++i)); do
  p=$(jq -c ".points[$i]" "$points")
  id=$(jq -r .id <<<"$p")
  # Stock configuration: the benchmark's client defaults, as InferenceX runs benchmark_serving.py
  # (input and output lengths uniform in [0.8, 1] x ISL/OSL, 2 x concurrency warm-up requests), fixed concurrency, no speculative decoding, the engine's defaults otherwise.
  args=(benchmark --hardware "$(jq -r .hardware <<<"$p")" --model "$(jq -r .model <<<"$p")"
    --engine "$(jq -r .engine <<<"$p")" --precision "$(jq -r .precision <<<"$p")" --tp "$(jq -r .tp <<<"$p")"
    --spec-tokens "$(jq -r '.spec_tokens // 0' <<<"$p")" --workload random --isl "$(jq -r .isl <<<"$p")" --osl "$(jq -r .osl <<<"$p")"
    --concurrency "$(jq -r .concurrency <<<"$p")" --seed 1 --json)
  [[ -z ${FIDELITY_OUTPUT_RANGE_RATIO:-} ]] || args+=(--output-range-ratio "$FIDELITY_OUTPUT_RANGE_RATIO")
  # Expert parallel where the point states it (tycoon's --ep divides --tp).
  [[ $(jq -r '.ep // 1' <<<"$p") == 1 ]] || args+=(--ep "$(jq -r .ep <<<"$p")")
  # How the source ran the engine where it is not the engine's default (run_config_source says
  # where each comes from: the source's launch script).
  [[ $(jq -r '.kv_dtype // ""' <<<"$p") == "" ]] || args+=(--kv-dtype "$(jq -r .kv_dtype <<<"$p")")
  [[ $(jq -r '.expert_activation // ""' <<<"$p") == "" ]] || args+=(--expert-activation "$(jq -r .expert_activation <<<"$p")")
  [[ $(jq -r '.mxfp4_backend // ""' <<<"$p") == "" ]] || args+=(--mxfp4-backend "$(jq -r .mxfp4_backend <<<"$p")")
  [[ $(jq -r '.max_num_batched_tokens // ""' <<<"$p") == "" ]] ||
    args+=(--max-num-batched-tokens "$(jq -r .max_num_batched_tokens <<<"$p")")
  [[ $(jq -r '.batch_wait_iters // ""' <<<"$p") == "" ]] || args+=(--batch-wait-iters "$(jq -r .batch_wait_iters <<<"$p")")
  [[ $(jq -r '.batch_wait_tokens_ratio // ""' <<<"$p") == "" ]] ||
    args+=(--batch-wait-tokens-ratio "$(jq -r .batch_wait_tokens_ratio <<<"$p")")
  [[ $(jq -r '.max_num_seqs // ""' <<<"$p") == "" ]] || args+=(--max-num-seqs "$(jq -r .max_num_seqs <<<"$p")")
  [[ $(jq -r '.recv_interval // ""' <<<"$p") == "" ]] ||
    args+=(--scheduler-recv-interval "$(jq -r .recv_interval <<<"$p")")
  # vLLM's asynchronous scheduling where the run had it (async_scheduling_source says why).
  [[ $(jq -r '.async_scheduling // false' <<<"$p") != true ]] || args+=(--async-scheduling)
  # Speculative decoding where the source's run had it (the source's columns do not say so; the
  # run_config_source does), with the acceptance its acceptance_source gives.
  [[ $(jq -r '.spec_method // ""' <<<"$p") == "" ]] || args+=(--spec-method "$(jq -r .spec_method <<<"$p")")
  [[ $(jq -r '.acceptance // ""' <<<"$p") == "" ]] || args+=(--acceptance "$(jq -r .acceptance <<<"$p")")
  # The client as that run's was, where it differs from the default (2 x concurrency warm-ups,
  # 10 x concurrency prompts).
  [[ $(jq -r '.warmup_requests // ""' <<<"$p") == "" ]] || args+=(--warmup-requests "$(jq -r .warmup_requests <<<"$p")")
  [[ $(jq -r '.num_requests // ""' <<<"$p") == "" ]] || args+=(--num-requests "$(jq -r .num_requests <<<"$p")")
  # A kept JSON is reused only if it ran with this point's exact arguments (its run configuration
  # and the output-length ratio), recorded beside it.
  if [[ ${FIDELITY_REUSE:-0} != 1 || ! -s $out/$id.json || ! -s $out/$id.args ]] ||
    [[ $(cat "$out/$id.args") != "${args[*]}" ]]; then
    if ! "$tycoon" "${args[@]}" >"$out/$id.json" 2>"$out/$id.err"; then
      refused+=("| $id | $(tr '\n' ' ' <"$out/$id.err" | sed 's/|/\\|/g') |")
      rm -f "$out/$id.json"
      continue
    fi
    printf '%s' "${args[*]}" >"$out/$id.args"
  fi
  rows+=("$(jq -r --slurpfile s "$out/$id.json" '
    def err(o; p): (o - p) / p * 100;
    [.id, .hardware, .engine + " " + .engine_version, .model, .precision,
     ((.tp | tostring) + (if (.ep // 1) != 1 then " (EP " + (.ep | tostring) + ")" else "" end)),
     ((.isl | tostring) + "/" + (.osl | tostring)), (.concurrency | tostring),
     .published.ttft_ms, $s[0].ttft_ms.mean, err($s[0].ttft_ms.mean; .published.ttft_ms),
     .published.tpot_ms, $s[0].tpot_ms.mean, err($s[0].tpot_ms.mean; .published.tpot_ms),
     (if .not_steady_state then "x" else "" end)] | @tsv' <<<"$p")")
done
# Points whose published figure is not a steady-state one (not_steady_state says why: a run with no
# warm-up whose first requests waited on something the simulator does not model) are shown, marked,
# and left out of the medians; the medians with them follow.
steady=() flagged=()
for r in "${rows[@]}"; do
  if [[ $(cut -f15 <<<"$r") == x ]]; then flagged+=("$r"); else steady+=("$r"); fi
done

echo
echo "| point | GPU | engine | model | precision | TP | ISL/OSL | users | TTFT published (ms) | TTFT ours (ms) | TTFT error | TPOT published (ms) | TPOT ours (ms) | TPOT error |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}" | awk -F'\t' '{ printf "| %s%s | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %+.0f%% | %.2f | %.2f | %+.0f%% |\n", $1, ($15 == "x" ? " (not steady state)" : ""), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 }'

# Median and worst absolute error of each metric, over the points that ran.
summary() {
  local col=$1 name=$2
  shift 2
  printf '%s\n' "$@" | awk -F'\t' -v c="$col" '{ e = $c < 0 ? -$c : $c; print e, $c, $1 }' | sort -g | awk -v name="$name" '
    { a[NR] = $1; s[NR] = $2; id[NR] = $3 }
    END {
      if (NR == 0) exit
      med = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      printf "- %s: %d points, median |error| %.0f%%, worst %+.0f%% (%s)\n", name, NR, med, s[NR], id[NR]
    }'
}
echo
summary 11 "TTFT" "${steady[@]}"
summary 14 "TPOT" "${steady[@]}"
if ((${#flagged[@]})); then
  echo "- ${#flagged[@]} points marked not steady state (the points file's not_steady_state says why) are left out of these medians and of the groups' below; with them:"
  summary 11 "  TTFT, all points" "${rows[@]}"
  summary 14 "  TPOT, all points" "${rows[@]}"
fi
# The signs by group point at mechanisms, not noise: the median signed error of each group.
echo
echo "| group (model, GPU, engine) | points | median TTFT error | median TPOT error |"
echo "|---|---|---|---|"
printf '%s\n' "${steady[@]}" | awk -F'\t' '{ split($3, e, " "); print $4 ", " $2 ", " e[1] "\t" $11 "\t" $14 }' | sort -t$'\t' -k1,1 |
  awk -F'\t' '
    function median(v, n,   i, j, t) {
      for (i = 2; i <= n; ++i) for (j = i; j > 1 && v[j - 1] > v[j]; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function flush() { if (n) printf "| %s | %d | %+.0f%% | %+.0f%% |\n", g, n, median(ttft, n), median(tpot, n) }
    $1 != g { flush(); g = $1; n = 0; delete ttft; delete tpot }
    { ++n; ttft[n] = $2; tpot[n] = $3 }
    END { flush() }' 
if ((${#refused[@]})); then
  echo
  echo "Points the simulator refused:"
  echo
  echo "| point | reason |"
  echo "|---|---|"
  printf '%s\n' "${refused[@]}"
fi
