#!/usr/bin/env bash
# CLI contract: help works, bad flags and bad values exit 2 with one line, catalogs list.
set -u
tycoon="$1"
fail=0
check() {  # name expected_code command...
  local name=$1 want=$2; shift 2
  local out; out=$("$@" 2>&1); local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $name: exit $got, want $want"; echo "$out" | head -5; fail=1; fi
}
check_one_line_error() {  # name command...
  local name=$1; shift
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  local lines; lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$got" != 2 ] || [ "$lines" != 1 ]; then echo "FAIL $name: exit $got, $lines lines: $err"; fail=1; fi
}
check help 0 "$tycoon" --help
# --version: CMakeLists.txt's project VERSION and the commit the build was made from (`git describe
# --always --long --dirty`: [TAG-N-g]HASH[-dirty], or "unknown" without git); the same pair is
# written into saves, reports and summaries.
want_version=$(sed -n 's/^project(inference_tycoon VERSION \([0-9.]*\) .*/\1/p' "$(dirname "$0")/../CMakeLists.txt")
version_out=$("$tycoon" --version) || { echo "FAIL --version exits non-zero"; fail=1; }
[[ "$version_out" =~ ^tycoon\ ([0-9]+\.[0-9]+\.[0-9]+)\ \(commit\ ([0-9A-Za-z._+-]+)\)$ ]] &&
  [ "${BASH_REMATCH[1]}" = "$want_version" ] || { echo "FAIL --version: '$version_out' (want version $want_version)"; fail=1; }
commit=${BASH_REMATCH[2]:-}
[ "$commit" = unknown ] || [[ "$commit" =~ ^([0-9A-Za-z._+-]+-[0-9]+-g)?[0-9a-f]{7,40}(-dirty)?$ ]] ||
  { echo "FAIL --version: '$commit' is not a commit"; fail=1; }
written_by="\"written_by\": {\"commit\": \"$commit\", \"version\": \"$want_version\"}"
check list-help 0 "$tycoon" list --help
check predict-help 0 "$tycoon" predict --help
check list-hardware 0 "$tycoon" list hardware
check list-models 0 "$tycoon" list models
check list-engines 0 "$tycoon" list engines
check list-recipes 0 "$tycoon" list recipes
check_one_line_error unknown-flag "$tycoon" list hardware --bogus
# The drafter's method is one of the three the perf model prices; an MTP drafter is not an EAGLE
# one (its draft pass is a full block of the target), so the config says which ran.
check_one_line_error spec-method-unknown "$tycoon" benchmark --hardware h200 --model deepseek-r1 --spec-tokens 3 \
  --acceptance 2 --spec-method medusa --isl 64 --osl 8 --concurrency 1
check_one_line_error spec-method-without-drafts "$tycoon" benchmark --hardware h200 --model deepseek-r1 --spec-method mtp \
  --isl 64 --osl 8 --concurrency 1
mtp_json=$("$tycoon" benchmark --hardware h200 --model deepseek-r1 --engine sglang --tp 8 --spec-tokens 3 --acceptance 2.18 \
  --spec-method mtp --isl 256 --osl 16 --concurrency 2 --num-requests 4 --json 2>/dev/null)
grep -q '"method": *"mtp"' <<<"$mtp_json" || { echo "FAIL benchmark --spec-method mtp: the config does not say mtp"; fail=1; }
# MTP drafts with the model's own multi-token-prediction module: a model that ships none (GPT-OSS,
# Llama; its card's mtp_modules is 0) is refused, naming the field, where it used to time a drafter
# that does not exist.
mtp_err=$("$tycoon" predict --hardware h200 --model gpt-oss-120b --spec-tokens 3 --acceptance 2 --spec-method mtp \
  --decode-batch 16 --context 1024 2>&1 >/dev/null)
mtp_rc=$?
[ "$mtp_rc" = 2 ] && grep -q "mtp_modules" <<<"$mtp_err" ||
  { echo "FAIL --spec-method mtp on GPT-OSS-120B: exit $mtp_rc: $mtp_err"; fail=1; }
check_one_line_error acceptance-without-drafts "$tycoon" predict --hardware h200 --model llama-3.1-8b --acceptance 3 \
  --decode-batch 16 --context 1024
check_one_line_error batch-wait-iters-alone "$tycoon" benchmark --hardware h200 --model llama-3.1-8b --engine trtllm \
  --batch-wait-iters 20 --isl 64 --osl 8 --concurrency 2
check_one_line_error spec-method-mtp-no-module "$tycoon" benchmark --hardware h200 --model llama-3.1-8b --spec-tokens 3 \
  --acceptance 2 --spec-method mtp --isl 64 --osl 8 --concurrency 1
# SGLang's receive interval is SGLang's: another engine refuses it, naming the engine card's field.
recv_err=$("$tycoon" benchmark --hardware h200 --model llama-3.1-8b --engine vllm --scheduler-recv-interval 10 \
  --isl 64 --osl 8 --concurrency 1 2>&1 >/dev/null)
recv_rc=$?
[ "$recv_rc" = 2 ] && grep -q "supports_recv_interval" <<<"$recv_err" ||
  { echo "FAIL --scheduler-recv-interval on vLLM: exit $recv_rc: $recv_err"; fail=1; }
# Scheduling one step ahead is vLLM's, SGLang's and TensorRT-LLM's: llama.cpp refuses it, naming
# the engine card's field; on the three the run's configuration says it ran so.
async_err=$("$tycoon" benchmark --hardware h200 --model llama-3.1-8b --engine llamacpp --async-scheduling \
  --isl 64 --osl 8 --concurrency 1 2>&1 >/dev/null)
async_rc=$?
[ "$async_rc" = 2 ] && grep -q "supports_async_scheduling" <<<"$async_err" ||
  { echo "FAIL --async-scheduling on llama.cpp: exit $async_rc: $async_err"; fail=1; }
for engine in vllm sglang trtllm; do
  "$tycoon" benchmark --hardware h200 --model llama-3.1-8b --engine "$engine" --async-scheduling --isl 64 --osl 8 \
    --concurrency 2 --num-requests 4 --json 2>/dev/null | grep -q '"async_scheduling": *true' ||
    { echo "FAIL benchmark --engine $engine --async-scheduling: the config does not say async_scheduling"; fail=1; }
done
# An engine card's behaviour is listed as the simulator reads it: KV memory, running limit, and the
# scheduler mechanisms benchmark offers only where the engine has them.
engines_json=$("$tycoon" list engines --json)
for key in '"kv_memory"' '"running_limit": "kv-pool"' '"kv_admission": "guaranteed-no-evict"' \
  '"supports_async_scheduling": true' '"supports_recv_interval": true' '"supports_batch_waiting": true'; do
  echo "$engines_json" | grep -q "$key" || { echo "FAIL list engines --json lacks $key"; fail=1; }
done
check_one_line_error unknown-command "$tycoon" frobnicate
check_one_line_error bad-catalog-name "$tycoon" list gpus
check_one_line_error bad-tp "$tycoon" predict --hardware h200 --model llama-3.1-8b --tp 0 --decode-batch 1
check_one_line_error unknown-model "$tycoon" predict --hardware h200 --model no-such-model --decode-batch 1
check_one_line_error unknown-hardware "$tycoon" predict --hardware h999 --model llama-3.1-8b --decode-batch 1
check_one_line_error missing-model-file "$tycoon" predict --hardware h200 --model-file /nonexistent.json --decode-batch 1
check_one_line_error bad-data-root "$tycoon" --data /nonexistent list models
"$tycoon" list hardware | grep -q "h200" || { echo "FAIL list hardware lacks h200"; fail=1; }
"$tycoon" list models --json | grep -q '"sources"' || { echo "FAIL list models --json lacks sources"; fail=1; }
out=$("$tycoon" predict --hardware h200 --model llama-3.1-8b --engine torch-reference --precision bf16 --tp 1 \
  --decode-batch 16 --context 1024 --json) || { echo "FAIL predict"; fail=1; }
echo "$out" | grep -q '"iteration_s"' || { echo "FAIL predict --json lacks iteration_s"; fail=1; }
# A step whose sequences the KV cache cannot hold is timed but not said to fit: a million 100k-token
# contexts of Llama-3.1-8B want ~1e16 bytes of KV per H200 against ~1.15e11.
big=$("$tycoon" predict --hardware h200 --model llama-3.1-8b --decode-batch 1000000 --context 100000 --json)
python3 -c 'import json, sys; m = json.loads(sys.argv[1])["memory"]; sys.exit(0 if m["weights_fit"] and not m["fits"] and "KV cache" in m["reason"] else 1)' "$big" ||
  { echo "FAIL predict: a batch beyond the KV cache says it fits: $big"; fail=1; }
# benchmark: the serving simulator
bench=(benchmark --hardware h200 --model gpt-oss-120b --engine vllm --precision fp4 --tp 1 --isl 1024 --osl 256)
check benchmark-help 0 "$tycoon" benchmark --help
check benchmark-table 0 "$tycoon" "${bench[@]}" --concurrency 4 --num-requests 8
check_one_line_error benchmark-bad-concurrency "$tycoon" "${bench[@]}" --concurrency 0
check_one_line_error benchmark-bad-workload "$tycoon" "${bench[@]}" --workload nonsense
check_one_line_error benchmark-rate-needs-open-loop "$tycoon" "${bench[@]}" --rate 3
check_one_line_error benchmark-poisson-needs-rate "$tycoon" "${bench[@]}" --arrival poisson
check_one_line_error benchmark-acceptance-too-high "$tycoon" "${bench[@]}" --spec-tokens 3 --acceptance 4.5
check_one_line_error benchmark-missing-trace "$tycoon" "${bench[@]%--isl*}" --trace /nonexistent.jsonl
check_one_line_error benchmark-too-long "$tycoon" "${bench[@]}" --isl 200000
bad_trace=$(mktemp); printf '{"arrival_s": 0, "input_tokens": 10, "output_tokens": 2}\n{"arrival_s": 1, "input_tokens": -1, "output_tokens": 2}\n' >"$bad_trace"
err=$("$tycoon" benchmark --hardware h200 --model gpt-oss-120b --trace "$bad_trace" 2>&1 >/dev/null)
echo "$err" | grep -q "$bad_trace:2: /input_tokens: must be positive" || { echo "FAIL trace error lacks file:line: $err"; fail=1; }
rm -f "$bad_trace"
# Public trace formats: recognised from the content; a bad row names file, line and field (exit 2).
bad_azure=$(mktemp); printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,0\n' >"$bad_azure"
check_one_line_error trace-azure-bad-row "$tycoon" benchmark --hardware h200 --model gpt-oss-120b --trace "$bad_azure"
err=$("$tycoon" benchmark --hardware h200 --model gpt-oss-120b --trace "$bad_azure" 2>&1 >/dev/null)
echo "$err" | grep -q "$bad_azure:2: /GeneratedTokens: must be at least 1" || { echo "FAIL azure trace error: $err"; fail=1; }
rm -f "$bad_azure"
traces="$(dirname "$0")/data/traces"
for f in mooncake_sample.jsonl azure_sample.csv agentx_sample.jsonl; do
  check "trace-import-$f" 0 "$tycoon" benchmark --hardware h200 --model gpt-oss-120b --trace "$traces/$f"
done
run1=$("$tycoon" "${bench[@]}" --concurrency 8 --num-requests 24 --spec-tokens 3 --acceptance 2.31 --seed 5 --json) || { echo "FAIL benchmark --json"; fail=1; }
run2=$("$tycoon" "${bench[@]}" --concurrency 8 --num-requests 24 --spec-tokens 3 --acceptance 2.31 --seed 5 --json)
for key in ttft_ms tpot_ms itl_ms e2e_ms output_tok_per_s_per_gpu p90_interactivity_tok_per_s_per_user \
  requests_completed requests_failed prefix_cache_hit_rate simulated_time_s wall_time_s provenance; do
  echo "$run1" | grep -q "\"$key\"" || { echo "FAIL benchmark --json lacks $key"; fail=1; }
done
[ "$(echo "$run1" | grep -v wall_time_s)" = "$(echo "$run2" | grep -v wall_time_s)" ] ||
  { echo "FAIL benchmark: same seed, different JSON"; fail=1; }
# A benchmark is a stock configuration unless flags say otherwise: the gpt-oss-120b
# H200 recipe carries EAGLE-3 with 7 drafts, yet without --spec-tokens none runs; with it, the
# recipe's drafter and acceptance are the defaults; another engine inherits none of it.
stock=$("$tycoon" "${bench[@]}" --concurrency 2 --num-requests 4 --json)
echo "$stock" | grep -q '"spec_decode": null' || { echo "FAIL benchmark turned speculative decoding on unasked"; fail=1; }
asked=$("$tycoon" "${bench[@]}" --concurrency 2 --num-requests 4 --spec-tokens 3 --acceptance 2.31 --json)
echo "$asked" | grep -q '"num_draft_tokens": 3' || { echo "FAIL --spec-tokens 3 did not run 3 drafts"; fail=1; }
check_one_line_error benchmark-other-engine-no-recipe-spec "$tycoon" benchmark --hardware h200 --model gpt-oss-120b \
  --engine sglang --precision fp4 --tp 1 --isl 1024 --osl 256 --concurrency 2 --num-requests 4 --spec-tokens 3
# Disaggregated prefill/decode: both pools and the transfer in the JSON; decode
# flags need --disaggregated; NVLink does not join two chip types.
dis=$("$tycoon" "${bench[@]}" --concurrency 4 --num-requests 8 --disaggregated --decode-hardware b200 --decode-replicas 2 --json) ||
  { echo "FAIL benchmark --disaggregated"; fail=1; }
for key in disaggregation_stats kv_link num_transfers busy_fraction transfer_ms_mean; do
  echo "$dis" | grep -q "\"$key\"" || { echo "FAIL benchmark --disaggregated --json lacks $key"; fail=1; }
done
echo "$dis" | grep -q '"num_gpus": 3' || { echo "FAIL benchmark --disaggregated: 1 prefill + 2 decode GPUs"; fail=1; }
check_one_line_error benchmark-decode-needs-disaggregated "$tycoon" "${bench[@]}" --concurrency 2 --decode-replicas 2
check_one_line_error benchmark-nvlink-across-chips "$tycoon" "${bench[@]}" --concurrency 2 --disaggregated \
  --decode-hardware b200 --kv-link nvlink
check_one_line_error benchmark-disaggregated-too-many-gpus "$tycoon" "${bench[@]}" --concurrency 2 --disaggregated \
  --replicas 1000 --decode-replicas 1000
check_one_line_error benchmark-bad-kv-link "$tycoon" "${bench[@]}" --concurrency 2 --disaggregated --kv-link carrier-pigeon
# The client is InferenceX's benchmark_serving.py run unless flags say otherwise:
# lengths in [0.8, 1] x ISL/OSL, 2 x concurrency warm-up requests; both printed.
echo "$stock" | grep -q '"warmup_requests": 4' || { echo "FAIL benchmark default warm-up is not 2 x concurrency"; fail=1; }
echo "$stock" | grep -q '"random_range_ratio": 0.8' || { echo "FAIL benchmark default range ratio is not 0.8"; fail=1; }
echo "$stock" | grep -q '"requests_arrived": 8' || { echo "FAIL benchmark: 4 warm-up + 4 measured requests did not arrive"; fail=1; }
"$tycoon" "${bench[@]}" --concurrency 2 --num-requests 4 | grep -q "^client: 2 users starting together, 4 measured requests after 4 warm-up requests; lengths uniform in \[0.80, 1\]" ||
  { echo "FAIL benchmark table does not say what the client ran"; fail=1; }
check_one_line_error benchmark-bad-range-ratio "$tycoon" "${bench[@]}" --random-range-ratio 1.5
check_one_line_error benchmark-range-ratio-not-random "$tycoon" benchmark --hardware h200 --model gpt-oss-120b --workload chat --random-range-ratio 0.5
check_one_line_error benchmark-warmup-requests-open-loop "$tycoon" "${bench[@]}" --arrival poisson --rate 1 --warmup-requests 4
check_one_line_error benchmark-two-warmups "$tycoon" "${bench[@]}" --warmup-requests 4 --warmup-s 10
# The AgentX replay's timings: each is a flag, refused on other workloads and
# printed on the client line.
agentic=(benchmark --hardware h200 --model gpt-oss-120b --engine vllm --precision fp4 --tp 1 --workload agentic-coding)
# The default is AgentX's current harness (august-2026); a flag refines one part of a timing.
"$tycoon" "${agentic[@]}" --concurrency 2 --duration-s 120 |
  grep -q "^client: .*the system idle at most 10.0 s; recorded pauses capped at 300 s (end-to-start: the gap less the answer's recorded time); AgentX's august-2026 timing" ||
  { echo "FAIL benchmark's agentic default is not AgentX's august-2026 timing"; fail=1; }
"$tycoon" "${agentic[@]}" --concurrency 2 --duration-s 120 --agentx-timing june-2026 |
  grep -q "^client: .*recorded pauses capped at 60 s (start-to-start gaps, waited after each answer); AgentX's june-2026 timing" ||
  { echo "FAIL benchmark does not run the named AgentX timing"; fail=1; }
"$tycoon" "${agentic[@]}" --concurrency 2 --duration-s 120 --agentx-timing may-2026 --pause-basis end-to-start |
  grep -q "^client: .*recorded pauses capped at 60 s (end-to-start: the gap less the answer's recorded time); a custom AgentX timing" ||
  { echo "FAIL benchmark does not print the pause basis it ran"; fail=1; }
check_one_line_error benchmark-pause-basis-not-agentic "$tycoon" "${bench[@]}" --pause-basis start-to-start
check_one_line_error benchmark-agentx-timing-not-agentic "$tycoon" "${bench[@]}" --agentx-timing july-2026
check_one_line_error benchmark-bad-pause-basis "$tycoon" "${agentic[@]}" --pause-basis sideways
check_one_line_error benchmark-bad-agentx-timing "$tycoon" "${agentic[@]}" --agentx-timing 2026
# Configurations that do not run are refused with the reason.
check_one_line_error predict-tp-not-dividing-heads "$tycoon" predict --hardware h200 --model llama-3.1-8b --tp 3 --decode-batch 1
check_one_line_error predict-ep-on-dense-model "$tycoon" predict --hardware h200 --model llama-3.1-8b --tp 2 --ep 2 --decode-batch 1
check_one_line_error predict-context-beyond-window "$tycoon" predict --hardware h200 --model llama-3.1-8b --context 9999999 --decode-batch 1
check_one_line_error run-commands-is-a-folder "$tycoon" run default --days 1 --commands "$(dirname "$0")"
# A card given by path predicts exactly what the catalog id predicts.
root=$(cd "$(dirname "$0")/.." && pwd)
a=$("$tycoon" predict --hardware h200 --model llama-3.1-8b --decode-batch 8 --context 512 --json | grep '"iteration_s"')
b=$("$tycoon" predict --hardware h200 --model-file "$root/models/llama-3.1-8b.json" --decode-batch 8 --context 512 --json | grep '"iteration_s"')
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL --model-file differs from --model: $a vs $b"; fail=1; }
# A deployment that does not fit is reported with its numbers (not an error exit: the plan is the answer).
"$tycoon" predict --hardware h100 --model llama-3.1-70b --tp 1 --precision bf16 --decode-batch 1 | grep -q "DOES NOT FIT" \
  || { echo "FAIL 70B bf16 on one H100 should not fit"; fail=1; }
# run: a scenario headless
check run-help 0 "$tycoon" run --help
check_one_line_error run-unknown-scenario "$tycoon" run no-such-scenario
check_one_line_error run-no-scenario "$tycoon" run
bad_log=$(mktemp); printf '{"at_hour": 0, "type": "rent_gpus", "chip": "h200"}\n' >"$bad_log"
err=$("$tycoon" run tutorial --commands "$bad_log" 2>&1 >/dev/null)
echo "$err" | grep -q "$bad_log:1: /contract: missing required field" || { echo "FAIL run log error lacks file:line: $err"; fail=1; }
rm -f "$bad_log"
# A well-formed command the game refuses (no such chip in the market) is reported, not dropped.
refused_log=$(mktemp); printf '{"at_hour": 0, "type": "rent_gpus", "chip": "h999", "contract": "on_demand", "num_gpus": 1}\n' >"$refused_log"
err=$("$tycoon" run tutorial --days 1 --commands "$refused_log" --json 2>&1 >/dev/null)
echo "$err" | grep -q "$refused_log: command 1 refused at hour 0: rent_gpus" || { echo "FAIL refused command not reported: $err"; fail=1; }
"$tycoon" run tutorial --days 1 --commands "$refused_log" --json 2>/dev/null | grep -q '"commands_refused": 1' ||
  { echo "FAIL run --json lacks commands_refused 1"; fail=1; }
rm -f "$refused_log"
out_dir=$(mktemp -d)
run=$("$tycoon" run tutorial --days 1 --seed 3 --out "$out_dir" --json) || { echo "FAIL run --json"; fail=1; }
for key in cash_usd revenue_usd gpu_cost_usd gross_margin output_tokens slo_attainment bankrupt score \
  simulated_days wall_time_s; do
  echo "$run" | grep -q "\"$key\"" || { echo "FAIL run --json lacks $key"; fail=1; }
done
for f in hourly.csv deployments.csv scenario.resolved.json summary.json; do
  [ -s "$out_dir/$f" ] || { echo "FAIL run --out lacks $f"; fail=1; }
done
tr -d ' \n' <"$out_dir/summary.json" | grep -qF "$(tr -d ' ' <<<"$written_by")" ||
  { echo "FAIL run --out summary.json lacks $written_by"; fail=1; }
# No commands were played, so the command log exists and is empty.
[ -f "$out_dir/commands.jsonl" ] || { echo "FAIL run --out lacks commands.jsonl"; fail=1; }
grep -q '"seed": 3' "$out_dir/scenario.resolved.json" || { echo "FAIL resolved scenario lacks the seed"; fail=1; }
[ "$(head -1 "$out_dir/hourly.csv" | cut -d, -f1-3)" = "hour,cash_usd,revenue_usd" ] || { echo "FAIL hourly.csv header"; fail=1; }
# --advisor on: the advisor posts proposals (Chien-1 at hour 2 of the tutorial) that a log can
# decide; deciding one that was never posted is refused, not a crash.
cat >"$out_dir/advice.jsonl" <<'LOG'
{"at_hour": 0, "type": "rent_gpus", "chip": "h200", "contract": "on_demand", "num_gpus": 1}
{"at_hour": 1, "type": "deploy", "model": "gpt-oss-120b", "chip": "h200", "segment": "chat", "replicas": 1}
{"at_hour": 4, "type": "accept_advice", "advice_id": "Chien-1"}
{"at_hour": 5, "type": "reject_advice", "advice_id": "Chien-999"}
LOG
"$tycoon" run tutorial --days 1 --advisor on --commands "$out_dir/advice.jsonl" --save "$out_dir/advised.json" --json >/dev/null ||
  { echo "FAIL run --advisor"; fail=1; }
grep -q '"status": *"accepted"' "$out_dir/advised.json" || { echo "FAIL run --advisor: no accepted proposal in the save"; fail=1; }
tr -d ' \n' <"$out_dir/advised.json" | grep -qF "$(tr -d ' ' <<<"$written_by")" || { echo "FAIL the save lacks $written_by"; fail=1; }
# The advisor's memory is in the save: resuming with it continues its numbering.
"$tycoon" run --resume "$out_dir/advised.json" --days 2 --advisor on --no-counterfactuals --save "$out_dir/resumed.json" >/dev/null ||
  { echo "FAIL run --resume --advisor on"; fail=1; }
[ "$(grep -c '"id": *"Chien-1"' "$out_dir/resumed.json")" = 1 ] || { echo "FAIL resume with the advisor: Chien-1 posted twice"; fail=1; }
! grep -q 'true_speedup' "$out_dir/resumed.json" || { echo "FAIL a save shows the advisor's truth"; fail=1; }
rm -rf "$out_dir"
# sweep: analyst what-if grids
check sweep-help 0 "$tycoon" sweep --help
sw=$(mktemp -d)
printf '{"format_version": 1, "name": "bad", "concurrency": [1],\n "base": {"model": "llama-3.1-8b", "hardware": "h200", "tensor_paralel": 2}}\n' >"$sw/bad.json"
check_one_line_error sweep-bad-spec "$tycoon" sweep "$sw/bad.json" --out "$sw/bad"
err=$("$tycoon" sweep "$sw/bad.json" --out "$sw/bad" 2>&1 >/dev/null)
echo "$err" | grep -q "$sw/bad.json: /base/tensor_paralel: unknown key" || { echo "FAIL sweep error lacks file/pointer/reason: $err"; fail=1; }
[ ! -e "$sw/bad" ] || { echo "FAIL a bad sweep spec created its output folder"; fail=1; }
printf '{"format_version": 1, "name": "bad-id", "concurrency": [1], "axes": {"hardware": ["h200", "h999"]},\n "base": {"model": "llama-3.1-8b"}}\n' >"$sw/bad-id.json"
err=$("$tycoon" sweep "$sw/bad-id.json" --out "$sw/bad" 2>&1 >/dev/null)
echo "$err" | grep -q "/axes/hardware/1: unknown hardware 'h999'" || { echo "FAIL sweep bad id: $err"; fail=1; }
# Seconds typed as milliseconds: refused with the reading that was meant.
printf '{"format_version": 1, "name": "ms", "concurrency": [1], "base": {"model": "llama-3.1-8b", "hardware": "h200"},\n "target": {"max_p90_ttft_ms": 2}}\n' >"$sw/ms.json"
check_one_line_error sweep-ttft-in-seconds "$tycoon" sweep "$sw/ms.json" --out "$sw/ms"
"$tycoon" sweep "$sw/ms.json" --out "$sw/ms" 2>&1 | grep -qF "$sw/ms.json: /target/max_p90_ttft_ms: 2 ms is below 10 ms, faster than any deployment serves a first token: did you mean seconds? (2 s is \"max_p90_ttft_ms\": 2000)" ||
  { echo "FAIL a TTFT target of 2 ms gives no hint: $("$tycoon" sweep "$sw/ms.json" --out "$sw/ms" 2>&1)"; fail=1; }
check_one_line_error sweep-missing-spec "$tycoon" sweep "$sw/none.json"
check_one_line_error sweep-bad-jobs "$tycoon" sweep "$sw/bad.json" --jobs 0
printf '{"format_version": 1, "name": "ok", "concurrency": [1], "base": {"model": "llama-3.1-8b", "hardware": "h200"}}\n' >"$sw/ok.json"
check_one_line_error sweep-bad-report-dir "$tycoon" sweep "$sw/ok.json" --out "$sw/ok" --report /nonexistent/r.html
touch "$sw/afile"
check_one_line_error sweep-out-is-a-file "$tycoon" sweep "$sw/ok.json" --out "$sw/afile"
cat >"$sw/tiny.json" <<'SPEC'
{"format_version": 1, "name": "tiny", "title": "CLI contract sweep",
 "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm"},
 "axes": {"precision": ["bf16", "fp8"]},
 "workloads": [{"name": "short", "kind": "random", "input_tokens": 256, "output_tokens": 32}],
 "concurrency": [2, 4], "seeds": [1, 2], "prices": [{"name": "market"}, {"name": "half", "market_scale": 0.5}],
 "requests_per_user": 3, "target": {"min_p90_tok_per_s_per_user": 10, "gross_margin": 0.4}}
SPEC
"$tycoon" sweep "$sw/tiny.json" --out "$sw/a" --jobs 2 --report "$sw/a.html" --no-png >"$sw/a.out" 2>"$sw/a.err" ||
  { echo "FAIL sweep tiny: $(tail -3 "$sw/a.err")"; fail=1; }
for f in points.csv operating_points.csv summary.json pareto.svg cost_vs_interactivity.svg ttft_vs_throughput.svg margin_vs_price.svg points.jsonl sweep.json; do
  [ -s "$sw/a/$f" ] || { echo "FAIL sweep --out lacks $f"; fail=1; }
done
[ -s "$sw/a.html" ] && grep -q "<svg" "$sw/a.html" && ! grep -q "<script\|<link\|<img\|src=" "$sw/a.html" ||
  { echo "FAIL sweep --report is not a self-contained HTML file with inline SVG"; fail=1; }
# 2 configurations x 2 concurrencies x 2 seeds = 8 points, x 2 prices = 16 rows (+ header).
[ "$(wc -l <"$sw/a/points.csv")" = 17 ] || { echo "FAIL points.csv rows: $(wc -l <"$sw/a/points.csv")"; fail=1; }
head -1 "$sw/a/points.csv" | grep -q "output_tok_per_s_per_gpu,.*p90_tok_per_s_per_user,.*cost_blended_usd_per_mtok,.*gross_margin" ||
  { echo "FAIL points.csv header"; fail=1; }
# Tables a spreadsheet can use: points.csv re-prices (cached share), shows the batch and
# the failures; operating_points.csv gives every figure of each pick with its interval and provenance.
head -1 "$sw/a/points.csv" | grep -q ",requests_failed,failed_share,input_tokens,cached_input_tokens,cached_input_share,output_tokens,mean_batch_size,provenance," ||
  { echo "FAIL points.csv lacks the failed share, cached share or mean batch: $(head -1 "$sw/a/points.csv")"; fail=1; }
head -1 "$sw/a/operating_points.csv" | grep -qx "series,configuration,workload,pick,concurrency,users_per_gpu,bracket_low_users,bracket_high_users,price,metric,value,low,high,half_width_95_seeds,model_half_width,num_seeds,provenance,outside_validation_set" &&
  grep -q "^fp8,fp8,short,grid,4,4,,,,output_tok_per_s_per_gpu,[0-9.]*,[0-9.]*,[0-9.]*,[0-9.]*,[0-9.]*,2,interpolated,$" "$sw/a/operating_points.csv" &&
  grep -q "^fp8,fp8,short,grid,4,4,,,half,output_price_for_target_margin_usd_per_mtok," "$sw/a/operating_points.csv" ||
  { echo "FAIL operating_points.csv: $(head -3 "$sw/a/operating_points.csv")"; fail=1; }
# The market price as billed (the card's, scaled), not the spec's unset absolute 0.0.
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["prices"][0]; sys.exit(0 if p["input_usd_per_mtok"] > 0 and p["by_model"]["llama-3.1-8b"]["output_usd_per_mtok"] > 0 else 1)' "$sw/a/summary.json" ||
  { echo "FAIL summary.json prices: the market price shows as 0"; fail=1; }
grep -q "or, input held at market (\$[0-9.]* in, \$[0-9.]* cached): \$[0-9.]*±[0-9.]* out per Mtok" "$sw/a.out" ||
  { echo "FAIL the console lacks the output-only price for the target margin"; fail=1; }
for key in pareto_frontier operating_points groups half_width_95 provenance formulas calibrations output_price_for_target_margin; do
  grep -q "\"$key\"" "$sw/a/summary.json" || { echo "FAIL summary.json lacks $key"; fail=1; }
done
tr -d ' \n' <"$sw/a/summary.json" | grep -qF "$(tr -d ' ' <<<"$written_by")" || { echo "FAIL sweep summary.json lacks $written_by"; fail=1; }
grep -qF "Written by Inference Tycoon $want_version (commit $commit)" "$sw/a.html" || { echo "FAIL sweep --report does not say its build"; fail=1; }
# The console answers at every price (one margin column each) and names units one way everywhere.
head -2 "$sw/a.out" | grep -q "margin % market.*margin % half" || { echo "FAIL sweep console lacks a margin column per price: $(head -2 "$sw/a.out")"; fail=1; }
grep -q "USD/Mtok output-only" "$sw/a.out" && grep -q "USD/Mtok output-only" "$sw/a.html" && ! grep -q "USD/Mtok out<\|output only" "$sw/a.html" ||
  { echo "FAIL sweep unit labels differ between console and report"; fail=1; }
# PNG copies through the first converter that renders SVG (rsvg-convert, else the browser tests' Chromium).
if command -v rsvg-convert >/dev/null || command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
  "$tycoon" sweep "$sw/tiny.json" --out "$sw/png" --jobs 2 >/dev/null 2>&1
  for f in pareto cost_vs_interactivity ttft_vs_throughput margin_vs_price; do
    [ "$(head -c 4 "$sw/png/$f.png" 2>/dev/null | tail -c 3)" = PNG ] || { echo "FAIL sweep wrote no PNG for $f.svg"; fail=1; }
  done
fi
# Same spec, one job: the same bytes.
"$tycoon" sweep "$sw/tiny.json" --out "$sw/b" --jobs 1 --no-png >/dev/null 2>&1
cmp -s "$sw/a/points.csv" "$sw/b/points.csv" && cmp -s "$sw/a/summary.json" "$sw/b/summary.json" &&
  cmp -s "$sw/a/pareto.svg" "$sw/b/pareto.svg" || { echo "FAIL sweep output depends on --jobs"; fail=1; }
# Resume: drop the last journaled points as if interrupted; only those run again, same output.
head -5 "$sw/b/points.jsonl" >"$sw/b/j" && mv "$sw/b/j" "$sw/b/points.jsonl" && printf '{"hash": "torn' >>"$sw/b/points.jsonl"
out=$("$tycoon" sweep "$sw/tiny.json" --out "$sw/b" --resume --no-png 2>/dev/null)
echo "$out" | grep -q "^3 points simulated.*5 resumed" || { echo "FAIL sweep --resume: $(echo "$out" | tail -2)"; fail=1; }
cmp -s "$sw/a/points.csv" "$sw/b/points.csv" || { echo "FAIL resumed sweep differs"; fail=1; }
# Work not lost or wasted. The same command without --resume over a journal refuses
# (exit 2, one line) instead of discarding it, and says what to do.
err=$("$tycoon" sweep "$sw/tiny.json" --out "$sw/b" --no-png 2>&1 >/dev/null); code=$?
[ "$code" = 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && echo "$err" | grep -q "holds the journal of an earlier sweep (8 points in points.jsonl): pass --resume" ||
  { echo "FAIL sweep over a journal without --resume: exit $code: $err"; fail=1; }
[ "$(wc -l <"$sw/b/points.jsonl")" = 8 ] || { echo "FAIL the refused sweep touched the journal"; fail=1; }
# A seed changed (2 -> 3) and --resume: the seed-1 points (a hash of every input, seed included)
# are reused, only the seed-3 points run; the dropped seed-2 points stay in points-<old hash>.jsonl.
sed 's/"seeds": \[1, 2\]/"seeds": [1, 3]/' "$sw/tiny.json" >"$sw/changed.json"
out=$("$tycoon" sweep "$sw/changed.json" --out "$sw/b" --resume --no-png 2>"$sw/changed.err")
echo "$out" | grep -q "^4 points simulated.*4 resumed" && grep -q "4 journaled points have unchanged inputs and are reused; 4 are not points of this spec" "$sw/changed.err" &&
  [ "$(ls "$sw"/b/points-*.jsonl | wc -l)" = 1 ] ||
  { echo "FAIL sweep --resume after a seed changed: $(echo "$out" | tail -1) $(cat "$sw/changed.err")"; fail=1; }
# Seeds added back ([1, 2, 3]): nothing but the seed-2 points runs.
sed 's/"seeds": \[1, 2\]/"seeds": [1, 2, 3]/' "$sw/tiny.json" >"$sw/more.json"
out=$("$tycoon" sweep "$sw/more.json" --out "$sw/b" --resume --no-png 2>/dev/null)
echo "$out" | grep -q "^4 points simulated.*8 resumed" || { echo "FAIL sweep --resume after a seed was added: $(echo "$out" | tail -1)"; fail=1; }
# Points simulated by another build or calibration are not resumed into this one's (sweep.json
# records both): refused, exit 2, one line, the journal untouched.
cp -r "$sw/b" "$sw/other-build"
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j["fingerprint"]["build"]="0.0.0 (commit elsewhere)"; json.dump(j,open(p,"w"))' "$sw/other-build/sweep.json"
check_one_line_error sweep-resume-other-build "$tycoon" sweep "$sw/more.json" --out "$sw/other-build" --resume --no-png
"$tycoon" sweep "$sw/more.json" --out "$sw/other-build" --resume --no-png 2>&1 | grep -q "were simulated by another build or calibration (build 0.0.0 (commit elsewhere)" ||
  { echo "FAIL sweep --resume across builds not refused"; fail=1; }
# The estimate: one point (the median by work) is timed, the rest estimated from it, printed before they run.
grep -q "^sweep tiny: estimate: 7 points left, about .* of wall time on 2 jobs (timed: point" "$sw/a.err" ||
  { echo "FAIL sweep printed no estimate: $(cat "$sw/a.err")"; fail=1; }
# Above --confirm-above (minutes; default 30) without a terminal and without --yes: refused (exit 2)
# with the estimate and the command that runs the rest; with it, that command finishes the sweep.
err=$("$tycoon" sweep "$sw/tiny.json" --out "$sw/c" --no-png --confirm-above 0 2>&1 </dev/null >/dev/null); code=$?
[ "$code" = 2 ] && echo "$err" | grep -q "of wall time left (7 points), above 0.0 s (--confirm-above 0 min): not run; the timed point is journaled, run the rest with: .* --resume --yes$" ||
  { echo "FAIL sweep above --confirm-above without --yes: exit $code: $err"; fail=1; }
again=$(echo "$err" | tail -1 | sed 's/.*run the rest with: //')
out=$(eval "$again" 2>/dev/null </dev/null) && echo "$out" | grep -q "^7 points simulated.*1 resumed" ||
  { echo "FAIL the printed command did not finish the sweep: $again"; fail=1; }
cmp -s "$sw/a/points.csv" "$sw/c/points.csv" || { echo "FAIL a sweep confirmed after its first point differs"; fail=1; }
# On a terminal (script(1) gives the sweep one) it asks instead: "y" runs the rest, anything else refuses.
if command -v script >/dev/null; then
  echo y | script -qec "'$tycoon' sweep '$sw/tiny.json' --out '$sw/tty-y' --no-png --confirm-above 0" /dev/null >"$sw/tty-y.out" 2>&1 &&
    grep -q "run it? \[y/N\]" "$sw/tty-y.out" && grep -q "^8 points simulated" <(tr -d '\r' <"$sw/tty-y.out") ||
    { echo "FAIL sweep on a terminal, answered y: $(tail -3 "$sw/tty-y.out")"; fail=1; }
  echo n | script -qec "'$tycoon' sweep '$sw/tiny.json' --out '$sw/tty-n' --no-png --confirm-above 0" /dev/null >"$sw/tty-n.out" 2>&1
  code=$?
  [ "$code" = 2 ] && grep -q "not run; the timed point is journaled" "$sw/tty-n.out" ||
    { echo "FAIL sweep on a terminal, answered n: exit $code: $(tail -2 "$sw/tty-n.out")"; fail=1; }
fi
# Ctrl-C (SIGINT) mid-sweep: the points finished are journaled, the command to resume is printed,
# exit 130; the printed command resumes it. 32 points of 1.6k-25.6k requests: about 2 s on one core.
cat >"$sw/slow.json" <<'SPEC'
{"format_version": 1, "name": "slow", "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm"},
 "workloads": [{"name": "w", "kind": "random", "input_tokens": 256, "output_tokens": 1024}],
 "concurrency": [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64], "seeds": [1, 2],
 "requests_per_user": 400}
SPEC
"$tycoon" sweep "$sw/slow.json" --out "$sw/int" --jobs 1 --no-png >/dev/null 2>"$sw/int.err" &
pid=$!
for _ in $(seq 600); do [ "$(cat "$sw/int/points.jsonl" 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
kill -INT "$pid"; wait "$pid"; code=$?
lines=$(wc -l <"$sw/int/points.jsonl")
resume=$(grep -A1 "; resume with:" "$sw/int.err" | tail -1 | sed 's/^  //')
[ "$code" = 130 ] && [ "$lines" -ge 2 ] && [ "$lines" -lt 32 ] && [[ "$resume" == *"sweep $sw/slow.json --out $sw/int --jobs 1 --no-png --resume" ]] &&
  grep -q "^sweep slow: interrupted: $lines of 32 points finished and journaled in $sw/int/points.jsonl" "$sw/int.err" ||
  { echo "FAIL sweep Ctrl-C: exit $code, $lines journaled: $(cat "$sw/int.err")"; fail=1; }
out=$(eval "$resume" 2>/dev/null) && echo "$out" | grep -q "^$((32 - lines)) points simulated.*$lines resumed" ||
  { echo "FAIL resume after Ctrl-C: $(echo "$out" | tail -2)"; fail=1; }
# Sweeps on a cluster: four shards run as parallel processes, merged, give exactly the
# bytes of the single run; a missing or duplicated shard is refused (exit 2, one line).
for i in 0 1 2 3; do "$tycoon" sweep "$sw/tiny.json" --shard "$i/4" --out "$sw/parts" --jobs 1 >/dev/null 2>&1 & done
wait
[ "$(ls "$sw/parts" | wc -l)" = 4 ] || { echo "FAIL sweep --shard parts: $(ls "$sw/parts")"; fail=1; }
"$tycoon" sweep merge "$sw"/parts/part-*-of-4.json --out "$sw/m" --no-png >/dev/null 2>"$sw/m.err" ||
  { echo "FAIL sweep merge: $(cat "$sw/m.err")"; fail=1; }
for f in points.csv operating_points.csv summary.json pareto.svg cost_vs_interactivity.svg ttft_vs_throughput.svg margin_vs_price.svg sweep.json; do
  cmp -s "$sw/a/$f" "$sw/m/$f" || { echo "FAIL merged shards differ from the single run in $f"; fail=1; }
done
# A shard killed mid-run and run again resumes from its journal (a requeued Slurm task): here its
# journal holds one of its two points and the other's torn line; the part it then writes, merged, is
# still the single run's bytes, and the journal is gone once the part is written.
python3 - "$sw/parts/part-1-of-4.json" >"$sw/parts/part-1-of-4.journal.jsonl" <<'PY'
import json, sys
pts = json.load(open(sys.argv[1]))["points"]
print(json.dumps({"hash": pts[0]["hash"], "perf": pts[0]["perf"]}, separators=(",", ":")))
sys.stdout.write('{"hash":"' + pts[1]["hash"] + '","perf":{"cached')
PY
rm "$sw/parts/part-1-of-4.json"
"$tycoon" sweep "$sw/tiny.json" --shard 1/4 --out "$sw/parts" --jobs 1 >/dev/null 2>"$sw/resumed.err" &&
  grep -q "shard 1/4: .*; resuming: 1 points already done" "$sw/resumed.err" && [ ! -e "$sw/parts/part-1-of-4.journal.jsonl" ] ||
  { echo "FAIL a shard run again did not resume from its journal: $(cat "$sw/resumed.err")"; fail=1; }
"$tycoon" sweep merge "$sw"/parts/part-*-of-4.json --out "$sw/m3" --no-png >/dev/null 2>&1 &&
  cmp -s "$sw/a/summary.json" "$sw/m3/summary.json" && cmp -s "$sw/a/points.csv" "$sw/m3/points.csv" ||
  { echo "FAIL a resumed shard's part merged differs from the single run"; fail=1; }
# A second copy of a shard while the first runs is refused (exit 2, naming the shard), not let
# write the same journal; a damaged journal is refused with the advice to remove it.
flock "$sw/parts/.part-2-of-4.json.lock" -c \
  "\"$tycoon\" sweep \"$sw/tiny.json\" --shard 2/4 --out \"$sw/parts\" --jobs 1 >/dev/null 2>\"$sw/locked.err\"; echo \$? >\"$sw/locked.rc\""
[ "$(cat "$sw/locked.rc")" = 2 ] && grep -q -- "--shard 2/4: .* is being written by another process" "$sw/locked.err" ||
  { echo "FAIL a second copy of a shard was not refused: rc $(cat "$sw/locked.rc"): $(cat "$sw/locked.err")"; fail=1; }
printf 'not json\n{"hash":"x"}\n' >"$sw/parts/part-3-of-4.journal.jsonl"
err=$("$tycoon" sweep "$sw/tiny.json" --shard 3/4 --out "$sw/parts" --jobs 1 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -q "remove it to run this shard afresh" ||
  { echo "FAIL a damaged shard journal: rc $rc: $err"; fail=1; }
rm -f "$sw/parts/part-3-of-4.journal.jsonl"
# Shards of different builds or calibrations do not merge; a shard journal of another build is not resumed.
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j["fingerprint"]["calibration"]="0000000000000000"; json.dump(j,open(sys.argv[2],"w"))' \
  "$sw/parts/part-3-of-4.json" "$sw/other-part-3.json"
err=$("$tycoon" sweep merge "$sw"/parts/part-[012]-of-4.json "$sw/other-part-3.json" --out "$sw/m4" 2>&1 >/dev/null)
echo "$err" | grep -q "simulated by another build or calibration" || { echo "FAIL merge across calibrations: $err"; fail=1; }
printf '\n' >"$sw/parts/part-1-of-4.journal.jsonl"
printf '{"fingerprint":{"build":"0.0.0 (commit elsewhere)","calibration":"0000000000000000"}}\n' >"$sw/parts/part-1-of-4.journal.jsonl.fingerprint"
err=$("$tycoon" sweep "$sw/tiny.json" --shard 1/4 --out "$sw/parts" --jobs 1 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -q "another build or calibration .*remove the journal" ||
  { echo "FAIL a shard journal of another build: rc $rc: $err"; fail=1; }
rm -f "$sw/parts/part-1-of-4.journal.jsonl" "$sw/parts/part-1-of-4.journal.jsonl.fingerprint"
check_one_line_error sweep-merge-missing-shard "$tycoon" sweep merge "$sw/parts/part-0-of-4.json" \
  "$sw/parts/part-1-of-4.json" "$sw/parts/part-2-of-4.json" --out "$sw/m2"
err=$("$tycoon" sweep merge "$sw"/parts/part-[012]-of-4.json --out "$sw/m2" 2>&1 >/dev/null)
echo "$err" | grep -q "shard 3/4 is missing" || { echo "FAIL sweep merge missing shard message: $err"; fail=1; }
cp "$sw/parts/part-2-of-4.json" "$sw/dup.json"
check_one_line_error sweep-merge-duplicate-shard "$tycoon" sweep merge "$sw"/parts/part-*-of-4.json "$sw/dup.json" --out "$sw/m2"
err=$("$tycoon" sweep merge "$sw"/parts/part-*-of-4.json "$sw/dup.json" --out "$sw/m2" 2>&1 >/dev/null)
echo "$err" | grep -q "shard 2/4 given twice" || { echo "FAIL sweep merge duplicate message: $err"; fail=1; }
# A fleet a benchmark refuses is refused in a sweep too (here a 2,000-GPU prefill pool: the GPU bound, not the
# requests'), before any point runs; and a shard has only this guard.
cat >"$sw/fleet.json" <<'SPEC'
{"format_version": 1, "name": "fleet", "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm"},
 "configurations": [{"label": "2000P+1D", "disaggregated": true, "prefill_replicas": 2000, "decode_replicas": 1}],
 "workloads": [{"name": "short", "kind": "random", "input_tokens": 256, "output_tokens": 32}],
 "concurrency": [2], "seeds": [1], "prices": [{"name": "market"}], "requests_per_user": 3}
SPEC
check_one_line_error sweep-fleet "$tycoon" sweep "$sw/fleet.json" --shard 0/2 --out "$sw/fleet"
err=$("$tycoon" sweep "$sw/fleet.json" --shard 0/2 --out "$sw/fleet" 2>&1 >/dev/null)
echo "$err" | grep -q "series 2000P+1D.*: 2000 GPUs, more than 1024 (add --allow-long-run" ||
  { echo "FAIL sweep GPU bound: $err"; fail=1; }
check_one_line_error sweep-bad-shard "$tycoon" sweep "$sw/tiny.json" --shard 4/4 --out "$sw/p2"
check_one_line_error sweep-shard-report "$tycoon" sweep "$sw/tiny.json" --shard 0/4 --out "$sw/p2" --report "$sw/r.html"
check_one_line_error sweep-shard-resume "$tycoon" sweep "$sw/tiny.json" --shard 0/4 --out "$sw/p2" --resume
[ ! -e "$sw/p2" ] || { echo "FAIL a refused shard created its output folder"; fail=1; }
check_one_line_error sweep-merge-not-a-part "$tycoon" sweep merge "$sw/tiny.json" --out "$sw/m2"
rm -rf "$sw"
# Hostile input: each reproducer below, refused cleanly (exit 2, one line) or
# harmless; never a crash (exit >= 128), a hang (timeout: 124) or a file written where it must not be.
h=$(mktemp -d)
case $tycoon in /*) ;; */*) tycoon=$PWD/$tycoon ;; esac  # the checks below change folder
nest() { printf "%${1}s" | tr ' ' "$2"; }  # N copies of a character
# 1. Nesting 100,000 levels deep crashed the save checksum and the sweep spec copy (SIGSEGV).
{ printf '{"format": "inference-tycoon-save", "version": 1, "checksum": "x", "payload": '
  nest 100000 '['; nest 100000 ']'; printf '}\n'; } >"$h/deep.save"
check_one_line_error deep-save "$tycoon" run --resume "$h/deep.save" --no-counterfactuals
"$tycoon" run --resume "$h/deep.save" 2>&1 | grep -q "nested deeper than 64" || { echo "FAIL deep save: no depth message"; fail=1; }
{ printf '{"format_version": 1, "name": "deep", "base": '; nest 100000 '['; nest 100000 ']'; printf '}\n'; } >"$h/deep.json"
check_one_line_error deep-sweep-spec "$tycoon" sweep "$h/deep.json" --out "$h/deep-out"
printf '{"format_version": 1, "name": "d", "name": "e", "concurrency": [1]}\n' >"$h/dup.json"
"$tycoon" sweep "$h/dup.json" 2>&1 | grep -q "dup.json: /name: duplicate key" || { echo "FAIL duplicate key pointer"; fail=1; }
# 2. A trace on generated arrivals never ended (nor with --num-requests beyond the trace).
printf '{"arrival_s": 0, "input_tokens": 100, "output_tokens": 10}\n{"arrival_s": 1, "input_tokens": 100, "output_tokens": 10}\n' >"$h/t.jsonl"
tbench=(benchmark --hardware h200 --model gpt-oss-120b --trace "$h/t.jsonl")
check trace-poisson-ends 0 timeout 60 "$tycoon" "${tbench[@]}" --arrival poisson --rate 5
check trace-num-requests-ends 0 timeout 60 "$tycoon" "${tbench[@]}" --arrival bursty --rate 5 --num-requests 1000
check_one_line_error trace-ignores-concurrency "$tycoon" "${tbench[@]}" --concurrency 8
# 3. Injection and traversal: a spec name reached a shell line (write_pngs) and the output path.
printf '{"format_version": 1, "name": "x'"'"';touch INJECTED;'"'"'", "concurrency": [1], "base": {"model": "llama-3.1-8b", "hardware": "h200"}}\n' >"$h/inj.json"
cd "$h" || exit 1  # the default output folder is relative: sweeps/<name>
check_one_line_error injected-spec-name "$tycoon" sweep inj.json
printf '{"format_version": 1, "name": "../../x", "concurrency": [1], "base": {"model": "llama-3.1-8b", "hardware": "h200"}}\n' >"$h/up.json"
check_one_line_error traversal-spec-name "$tycoon" sweep up.json
# An --out folder with a quote in its name goes to the PNG converter as one argument, not a shell line.
printf '{"format_version": 1, "name": "q", "concurrency": [1], "requests_per_user": 2, "base": {"model": "llama-3.1-8b", "hardware": "h200"}}\n' >"$h/q.json"
"$tycoon" sweep q.json --out "o';touch INJECTED;'" >/dev/null 2>&1 || { echo "FAIL sweep with a quoted --out"; fail=1; }
[ ! -e "$h/INJECTED" ] && [ ! -e "$h/x" ] || { echo "FAIL a spec name or --out ran a shell command or left sweeps/"; fail=1; }
cd - >/dev/null || exit 1
# run --out replaces a planted symlink instead of writing through it.
mkdir -p "$h/out" && echo precious >"$h/victim" && ln -s "$h/victim" "$h/out/summary.json"
"$tycoon" run tutorial --days 1 --no-counterfactuals --out "$h/out" >/dev/null 2>&1 || { echo "FAIL run --out"; fail=1; }
[ "$(cat "$h/victim")" = precious ] && [ ! -L "$h/out/summary.json" ] || { echo "FAIL run --out wrote through a symlink"; fail=1; }
# 4. Saves: a bad --save is refused before the game runs (exit 2); a save that fails while
# writing exits 1 and still prints the run's summary (it used to exit 2 and drop it).
check_one_line_error save-missing-folder "$tycoon" run tutorial --days 1 --no-counterfactuals --save "$h/missing/s.json"
check_one_line_error save-is-folder "$tycoon" run tutorial --days 1 --no-counterfactuals --save "$h"
long=$(nest 300 s)
out=$("$tycoon" run tutorial --days 1 --no-counterfactuals --save "$h/$long.json" 2>"$h/err"); got=$?
[ "$got" = 1 ] && echo "$out" | grep -q "score" && grep -q "cannot save" "$h/err" ||
  { echo "FAIL a failed save: exit $got, $(head -2 "$h/err")"; fail=1; }
# 6. NaN, inf and negative seeds in flags (NaN passed every range check; -1 wrapped to 2^64 - 1).
check_one_line_error nan-acceptance "$tycoon" "${bench[@]}" --spec-tokens 3 --acceptance nan
check_one_line_error inf-warmup "$tycoon" "${bench[@]}" --warmup-s inf
check_one_line_error nan-rate "$tycoon" "${bench[@]}" --arrival poisson --rate nan
check_one_line_error nan-at-day "$tycoon" advise tutorial --at-day nan
check_one_line_error nan-max-error "$tycoon" validate --hardware h200 --max-error nan
check_one_line_error zero-max-error "$tycoon" validate --hardware h200 --max-error 0
check_one_line_error negative-seed-benchmark "$tycoon" "${bench[@]}" --seed -1
check_one_line_error negative-seed-run "$tycoon" run tutorial --seed -1
"$tycoon" "${bench[@]}" --acceptance nan 2>&1 | grep -q -- "--acceptance" || { echo "FAIL NaN message names no flag"; fail=1; }
# 7. Unbounded runs: refused with the reason and the override flag.
check_one_line_error too-many-requests "$tycoon" "${bench[@]}" --num-requests 10000000
"$tycoon" "${bench[@]}" --num-requests 10000000 2>&1 | grep -q -- "--allow-long-run" || { echo "FAIL limit names no override"; fail=1; }
check_one_line_error too-many-gpus "$tycoon" "${bench[@]}" --replicas 4096 --concurrency 1048576
check_one_line_error too-many-days "$tycoon" run tutorial --days 3650
check_one_line_error too-many-verify-runs "$tycoon" advise tutorial --verify 100 --search-seeds 50
check_one_line_error warmup-not-shorter "$tycoon" "${bench[@]}" --duration-s 10 --warmup-s 10
check_one_line_error warmup-eats-everything "$tycoon" "${bench[@]}" --concurrency 2 --num-requests 4 --warmup-s 1e8
# 8. Resuming at hour 24 with a log from hour 0 replays only the later commands; each refused one counted.
"$tycoon" run tutorial --days 1 --no-counterfactuals --save "$h/day1.json" >/dev/null 2>&1 || { echo "FAIL save day 1"; fail=1; }
printf '{"at_hour": 0, "type": "rent_gpus", "chip": "h200", "contract": "on_demand", "num_gpus": 1}\n{"at_hour": 30, "type": "set_prices", "model": "gpt-oss-120b", "output_usd_per_mtok": 0.66}\n{"at_hour": 999, "type": "set_prices", "model": "gpt-oss-120b", "output_usd_per_mtok": 0.7}\n' >"$h/log.jsonl"
out=$("$tycoon" run --resume "$h/day1.json" --days 2 --no-counterfactuals --commands "$h/log.jsonl" --json 2>"$h/err")
echo "$out" | grep -q '"commands_refused": 2' && grep -q "before the game's hour 24" "$h/err" && grep -q "game ended at hour 48" "$h/err" ||
  { echo "FAIL resume replay: $(cat "$h/err")"; fail=1; }
# --commands on a folder once played an empty log.
check_one_line_error commands-is-a-folder "$tycoon" run tutorial --days 1 --no-counterfactuals --commands "$h"
"$tycoon" run tutorial --days 1 --no-counterfactuals --commands "$h" 2>&1 | grep -q "is a folder, not a command log" ||
  { echo "FAIL --commands on a folder not refused as such"; fail=1; }
# 10. Leftovers of items 9-10: fit on an empty folder wrote a profile from 0 rows that validate
# accepted; sweep --resume trusted its journal; --kv-capacity-tokens 2^35 read as "no whole page";
# --rate 1e-9 named no flag; a KV cache too small for a request was called the context window;
# unwritable outputs failed (exit 1) after the work instead of being refused (exit 2) before it.
mkdir -p "$h/empty"
check_one_line_error fit-empty-folder "$tycoon" fit --hardware h200 --data "$h/empty" --out "$h/p.json"
# fit --in-use writes the profile the simulator uses for a chip and fits nothing: the B300 borrows
# the H200's measured curves (extrapolated), the B200 has its own fitted to published results
# (hardware_db/calibrated/b200.json). It takes no --data, and an unknown chip is refused.
"$tycoon" fit --hardware b300 --in-use | grep -q '"provenance": "extrapolated"' ||
  { echo "FAIL fit --in-use: the B300's profile is not the extrapolated one"; fail=1; }
"$tycoon" fit --hardware b200 --in-use | grep -q '"provenance": "fitted-to-published"' ||
  { echo "FAIL fit --in-use: the B200's profile is not its fitted one"; fail=1; }
check_one_line_error fit-in-use-data "$tycoon" fit --hardware b200 --in-use --data "$h/empty"
check_one_line_error fit-in-use-unknown-chip "$tycoon" fit --hardware nochip --in-use
[ ! -e "$h/p.json" ] || { echo "FAIL fit on an empty folder wrote a profile"; fail=1; }
if command -v python3 >/dev/null; then  # a "measured" profile whose curves are one placeholder point each
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(json.dumps({k: (v[:1] if isinstance(v, list) and v and isinstance(v[0], list) else v) for k, v in p.items()}))' \
    "$(cd "$(dirname "$0")/.." && pwd)/hardware_db/calibrated/h200.json" >"$h/zero-rows.json"
  check_one_line_error validate-zero-row-profile "$tycoon" validate --hardware h200 --profile "$h/zero-rows.json"
  "$tycoon" validate --hardware h200 --profile "$h/zero-rows.json" 2>&1 | grep -q "none has more than one point" ||
    { echo "FAIL validate: a profile fitted from nothing not named"; fail=1; }
fi
"$tycoon" sweep "$h/q.json" --out "$h/jr" --no-png >/dev/null 2>&1 || { echo "FAIL small sweep"; fail=1; }
sed -i '1s/"output_tok_per_s_per_gpu":[0-9.e+-]*/"output_tok_per_s_per_gpu":-1/' "$h/jr/points.jsonl"
check_one_line_error journal-tampered "$tycoon" sweep "$h/q.json" --out "$h/jr" --resume --no-png
"$tycoon" sweep "$h/q.json" --out "$h/jr" --resume --no-png 2>&1 |
  grep -q "points.jsonl:1: /perf/output_tok_per_s_per_gpu: must be a finite number >= 0" ||
  { echo "FAIL a tampered journal line not named"; fail=1; }
check_one_line_error kv-capacity-2e35 "$tycoon" "${bench[@]}" --kv-capacity-tokens 34359738368
"$tycoon" "${bench[@]}" --kv-capacity-tokens 34359738368 2>&1 | grep -q "more pages of 16 tokens than a replica can index" ||
  { echo "FAIL --kv-capacity-tokens 2^35: wrong reason"; fail=1; }
check_one_line_error rate-1e-9 "$tycoon" "${bench[@]}" --arrival poisson --rate 1e-9 --num-requests 8
"$tycoon" "${bench[@]}" --arrival poisson --rate 1e-9 --num-requests 8 2>&1 | grep -q -- "--rate 1e-09" ||
  { echo "FAIL --rate 1e-9 names no flag"; fail=1; }
out=$("$tycoon" "${bench[@]}" --concurrency 2 --num-requests 8 --kv-capacity-tokens 1200 --json) ||
  { echo "FAIL a small KV cache"; fail=1; }
echo "$out" | grep -q '"requests_exceeding_kv_cache": [1-9]' ||
  { echo "FAIL requests larger than the KV cache not counted as such: $(echo "$out" | grep exceeding)"; fail=1; }
echo x >"$h/a-file"
check_one_line_error run-out-under-a-file "$tycoon" run tutorial --days 1 --no-counterfactuals --out "$h/a-file/out"
check_one_line_error fit-out-missing-folder "$tycoon" fit --hardware h200 --out "$h/missing/p.json"
check_one_line_error sweep-report-missing-folder "$tycoon" sweep "$h/q.json" --out "$h/rep-out" --report "$h/missing/r.html"
[ ! -e "$h/rep-out" ] || { echo "FAIL sweep --report: refused only after the sweep ran"; fail=1; }
# A scenario id becomes the default save name: one that climbs out of the folder is refused.
sed 's/"id": "tutorial"/"id": "..\/..\/evil"/' "$(cd "$(dirname "$0")/.." && pwd)/scenarios/tutorial.json" >"$h/evil.json"
check_one_line_error scenario-id-traversal "$tycoon" run "$h/evil.json" --days 1 --no-counterfactuals
# The soak: random games and serving runs, conservation checked after every step (sim/game/soak.h).
check soak-short 0 "$tycoon" soak --runs 2 --seed 3 --max-days 1
# 9. Classroom: a class file, submissions, the report; bad input exits 2 naming the field.
"$tycoon" class new --id cli-class --scenario prices-only --seed 7 --days 1 --out "$h/class.json" >/dev/null ||
  { echo "FAIL class new"; fail=1; }
check_one_line_error class-bad-id "$tycoon" class new --id "Bad Id" --scenario prices-only --out "$h/x.json"
check_one_line_error class-bad-lever "$tycoon" class new --id c --scenario prices-only --lock teleport --out "$h/x.json"
check_one_line_error class-advisor-locked "$tycoon" class new --id c --scenario prices-only --advisor on --out "$h/x.json"
check_one_line_error class-unknown-scenario "$tycoon" class new --id c --scenario no-such-level --out "$h/x.json"
check_one_line_error class-too-long "$tycoon" class new --id c --scenario prices-only --days 61 --out "$h/x.json"
sed 's/"advisor": false/"advisor": false, "advisr": true/' "$h/class.json" >"$h/typo.json"
"$tycoon" class report "$h/typo.json" "$h" 2>&1 | grep -q "typo.json: /advisr: unknown key" || { echo "FAIL class file typo not named"; fail=1; }
check_one_line_error class-typo "$tycoon" class report "$h/typo.json" "$h"
sed 's/"scenario_hash": "fnv1a64:[0-9a-f]*"/"scenario_hash": "fnv1a64:0000000000000000"/' "$h/class.json" >"$h/stale.json"
check_one_line_error class-stale-scenario "$tycoon" class report "$h/stale.json" "$h"
check_one_line_error class-missing-dir "$tycoon" class report "$h/class.json" "$h/no-such-folder"
# A class report says which build wrote it: in its JSON and at the foot of its HTML.
mkdir -p "$h/subs" && : >"$h/nothing.jsonl"
"$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student Ada --out "$h/subs/ada.json" >/dev/null &&
  "$tycoon" class report "$h/class.json" "$h/subs" --out "$h/report.html" >/dev/null || { echo "FAIL class submit/report"; fail=1; }
tr -d ' \n' <"$h/report.json" | grep -qF "$(tr -d ' ' <<<"$written_by")" || { echo "FAIL class report.json lacks $written_by"; fail=1; }
grep -qF "Written by Inference Tycoon $want_version (commit $commit)" "$h/report.html" ||
  { echo "FAIL class report.html does not say its build"; fail=1; }
check_one_line_error class-submit-no-log "$tycoon" class submit "$h/class.json" --student Ada --out "$h/s.json"
mkdir -p "$h/subs"
printf '{"at_hour": 0, "type": "set_prices", "model": "gpt-oss-120b", "output_usd_per_mtok": 0.17}\n' >"$h/ada.jsonl"
"$tycoon" class submit "$h/class.json" --commands "$h/ada.jsonl" --student Ada --out "$h/subs/ada.json" >/dev/null ||
  { echo "FAIL class submit"; fail=1; }
sed 's/"score": /"score": 9/' "$h/subs/ada.json" >"$h/subs/forged.json"
out=$("$tycoon" class report "$h/class.json" "$h/subs" --json) || { echo "FAIL class report"; fail=1; }
echo "$out" | grep -q '"student": "Ada"' && echo "$out" | grep -q "checksum: does not match" && [ -s "$h/subs/report.html" ] ||
  { echo "FAIL class report: $(echo "$out" | head -20)"; fail=1; }
# The report's data beside the HTML; a second report passes over it (it is no submission).
grep -q '"format": "inference-tycoon-class-report"' "$h/subs/report.json" || { echo "FAIL class report json"; fail=1; }
out=$("$tycoon" class report "$h/class.json" "$h/subs" --json) || { echo "FAIL class report again"; fail=1; }
echo "$out" | grep -q '"file": "report.json"' && { echo "FAIL class report read its own json"; fail=1; }
# History before play and the browser link.
out=$("$tycoon" class new --id hist --scenario prices-only --days 1 --history-days 2 --out "$h/hist.json") ||
  { echo "FAIL class new --history-days"; fail=1; }
grep -q '"history_days": 2' "$h/hist.json" && echo "$out" | grep -q 'browser link: ?class=hist&scenario=classroom-prices-only&.*&history=2' ||
  { echo "FAIL class history/link: $out"; fail=1; }
check_one_line_error class-history-too-long "$tycoon" class new --id c --scenario prices-only --history-days 61 --out "$h/x.json"
# 10. Disaggregated serving in the game: the sandbox's example log deploys a decode pool;
# a scenario without the option refuses it with the reason, counted; a bad link names the field.
root=$(cd "$(dirname "$0")/.." && pwd)
out=$("$tycoon" run sandbox --days 1 --no-counterfactuals --commands "$root/docs/examples/sandbox-disaggregated.jsonl") ||
  { echo "FAIL sandbox disaggregated run"; fail=1; }
echo "$out" | grep -q 'decode on 2 x 1 b200 (vllm fp4 TP1) over infiniband' && ! echo "$out" | grep -q 'Refused' ||
  { echo "FAIL sandbox disaggregated: $(echo "$out" | head -c 600)"; fail=1; }
out=$("$tycoon" run default --days 1 --no-counterfactuals --json --commands "$root/docs/examples/sandbox-disaggregated.jsonl" 2>&1) ||
  true
echo "$out" | grep -q 'offers no disaggregated serving' || { echo "FAIL default scenario accepted a decode pool"; fail=1; }
sed 's/"infiniband"/"pigeon"/' "$root/docs/examples/sandbox-disaggregated.jsonl" >"$h/bad-link.jsonl"
check_one_line_error disaggregated-bad-link "$tycoon" run sandbox --days 1 --no-counterfactuals --commands "$h/bad-link.jsonl"
"$tycoon" run sandbox --days 1 --no-counterfactuals --commands "$h/bad-link.jsonl" 2>&1 | grep -q '/decode/link' ||
  { echo "FAIL bad link not named"; fail=1; }
# 11. `tycoon export`: level 1's deployment as vLLM commands, a manifest and a benchmark plan
# (tests/test_deployment_export.cpp checks the rules; scripts/check_cluster_jobs.sh the manifest's
# schema and every flag against the engine's documented list); bad input is one line, exit 2.
out=$("$tycoon" export --scenario campaign/01-thin-margin --concurrency 64 --out "$h/export") ||
  { echo "FAIL export level 1"; fail=1; }
for f in README.md run.sh deployment.yaml benchmark_plan.json export.json; do
  [ -s "$h/export/$f" ] || { echo "FAIL export wrote no $f"; fail=1; }
done
echo "$out" | grep -q 'server x8 (1 GPU each): vllm serve openai/gpt-oss-120b .*--tensor-parallel-size 1' ||
  { echo "FAIL export level 1 command: $out"; fail=1; }
check_one_line_error export-no-source "$tycoon" export --out "$h/x"
check_one_line_error export-both-sources "$tycoon" export --scenario tutorial --sweep "$h" --out "$h/x"
check_one_line_error export-no-sweep "$tycoon" export --sweep "$h/none" --out "$h/x"
check_one_line_error export-bad-deployment "$tycoon" export --scenario campaign/01-thin-margin --deployment 9 --out "$h/x"
check_one_line_error export-out-is-file "$tycoon" export --scenario campaign/01-thin-margin --out "$h/export/run.sh"
# From a benchmark: the run's deployment, its figures as the plan's expectation; with --json the
# export's lines go to stderr and stdout stays one JSON document.
"$tycoon" benchmark --hardware h200 --model llama-3.1-8b --isl 256 --osl 64 --concurrency 4 --num-requests 40 \
  --json --export "$h/ex-bench" 2>"$h/ex-bench.err" | python3 -c 'import json,sys; json.load(sys.stdin)' &&
  grep -q "vllm serve meta-llama/Llama-3.1-8B-Instruct" "$h/ex-bench.err" &&
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if len(p["expected_at_the_point"]) == 4 and p["runs"] else 1)' "$h/ex-bench/benchmark_plan.json" ||
  { echo "FAIL benchmark --export: $(cat "$h/ex-bench.err")"; fail=1; }
# The plan's own run lands inside the interval it expects: replayed in the simulator as the plan's
# client command makes it (its --num-prompts at the point, after 2 per user of warm-up), P90 TTFT
# falls in [low, high], for a plain benchmark's figures (10 requests per user, the users' common
# start included) and for steady-state ones (50 per user). GPT-OSS-120B on one H200 at 34 users:
# the two expectations do not overlap (about 102 against 63 ms), so each plan must send its own.
for steady in "" --steady-state; do
  d="$h/ex-plan$steady"
  "$tycoon" benchmark --hardware h200 --model gpt-oss-120b --isl 1024 --osl 1024 --concurrency 34 --seed 1 $steady \
    --export "$d" >/dev/null 2>&1 || { echo "FAIL benchmark $steady --export at 34 users"; fail=1; continue; }
  n=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); r=[r for r in p["runs"] if r["at_the_point"]][0]["argv"]; print(r[r.index("--num-prompts")+1])' "$d/benchmark_plan.json")
  "$tycoon" benchmark --hardware h200 --model gpt-oss-120b --isl 1024 --osl 1024 --concurrency 34 --seed 2 \
    --num-requests "$n" --json 2>/dev/null >"$d/replay.json"
  python3 -c '
import json, sys
plan = json.load(open(sys.argv[1])); run = json.load(open(sys.argv[2]))
e = [x for x in plan["expected_at_the_point"] if x["metric"] == "ttft_p90_ms"][0]
got = run["ttft_ms"]["p90"]
ok = e["low"] <= got <= e["high"]
print(("" if ok else "FAIL ") + "plan %s: %s prompts, P90 TTFT %.1f ms in [%.1f, %.1f]" % (sys.argv[3] or "plain", sys.argv[4], got, e["low"], e["high"]))
sys.exit(0 if ok else 1)' "$d/benchmark_plan.json" "$d/replay.json" "$steady" "$n" || fail=1
done
# From a sweep: its best series' pick; a summary.json that is not tycoon's, or whose recorded
# deployment differs from what the spec resolves to now (here its rent edited), is refused.
cat >"$h/tiny.json" <<'SPEC'
{"format_version":1,"name":"tiny","base":{"model":"llama-3.1-8b","hardware":"h200","engine":"vllm","tensor_parallel":1},
 "workloads":[{"kind":"random","input_tokens":256,"output_tokens":64}],"concurrency":[2,4],"requests_per_user":4,
 "target":{"min_p90_tok_per_s_per_user":20}}
SPEC
"$tycoon" sweep "$h/tiny.json" --out "$h/sw" --jobs 1 --no-png >/dev/null 2>&1 || { echo "FAIL export's sweep"; fail=1; }
out=$("$tycoon" export --sweep "$h/sw" --out "$h/ex-sw") && echo "$out" | grep -q "vllm serve meta-llama/Llama-3.1-8B-Instruct" ||
  { echo "FAIL export --sweep: $out"; fail=1; }
# --series takes the series' label or the name the console and operating_points.csv print.
legend=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["operating_points"][0]["legend"])' "$h/sw/summary.json")
grep -qF "$legend," "$h/sw/operating_points.csv" && "$tycoon" export --sweep "$h/sw" --series "$legend" --out "$h/ex-sw-legend" >/dev/null ||
  { echo "FAIL export --series '$legend' (the CSV's name)"; fail=1; }
cp -r "$h/sw" "$h/sw-bad"
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j["operating_points"][0]["concurrency"]="lots"; json.dump(j,open(p,"w"))' "$h/sw-bad/summary.json"
check_one_line_error export-bad-summary "$tycoon" export --sweep "$h/sw-bad" --out "$h/x"
cp "$h/sw/summary.json" "$h/sw-bad/summary.json"
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j["configurations"][0]["gpu_usd_per_hour"]+=1; json.dump(j,open(p,"w"))' "$h/sw-bad/summary.json"
err=$("$tycoon" export --sweep "$h/sw-bad" --out "$h/x" 2>&1 >/dev/null)
echo "$err" | grep -q "resolves to another deployment against this catalog than the sweep ran (gpu_usd_per_hour was" ||
  { echo "FAIL export over a changed catalog: $err"; fail=1; }
rm -rf "$h"
[ "$fail" = 0 ] && echo "cli contract: all checks passed"
exit $fail
