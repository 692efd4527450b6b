#!/usr/bin/env python3
"""Writes calibration/published/serving_points_minimax.json: MiniMax-M2.5's published vLLM serving
points on the H100, H200 and B200 that the project may use, run as InferenceX ran them.

    calibration/published/minimax_points.py [--csv silicon_sample.csv] > calibration/published/serving_points_minimax.json

The source is NVIDIA aiconfigurator's silicon sample at 095f58a51 (read from the CSV given, else from
a local mirror of ai-dynamo/aiconfigurator with `git show`). Selected: MiniMax-M2.5 vLLM rows of
aggregated serving on the H100, H200 and B200 without attention data parallelism as the source records
it, not marked work in progress, and not a configuration reserved in
../shared/validation/reserved_serving_keys.json (matched on GPU, engine, model, precision, TP, ISL,
OSL and users, whatever the expert split; the simulator's card is models/minimax-m2.7.json, whose
layer groups are read from both M2.5's and M2.7's configs). Where one configuration (GPU, precision,
TP, the expert split that ran, ISL, OSL, users) was measured more than once, the newest engine
version is kept, then the newest measurement.

Each launch is traced to the InferenceX pull request whose post-merge sweep produced it (a
measured time to the second is the merge time; date-only measurements are the post-merge "Run
Sweep" runs of that day's PR naming the config) and to its launch script at that commit; LAUNCHES
below holds what the simulator takes from each (expert parallelism where the script enabled it, the
KV precision, the token budget, the running limit), with its source.
"""
import argparse
import json
import sys
from pathlib import Path

from silicon_sample import AIC_COMMIT, URL, fail, note_field, read_rows

ROOT = Path(__file__).resolve().parents[2]
RESERVED = ROOT.parent / "shared" / "validation" / "reserved_serving_keys.json"
IX = "SemiAnalysisAI/InferenceX"
CHIPS = {"h100_sxm": "h100", "h200_sxm": "h200", "b200_sxm": "b200"}
DEFAULTS = ("no --kv-cache-dtype, --max-num-batched-tokens or --max-num-seqs (vLLM's defaults: a bf16 KV "
            "cache, 8,192 tokens, and 1,024 running on a GPU of 70 GiB or more, vllm/engine/arg_utils.py "
            "get_batch_defaults, as read in recent vLLM, not checked at this release)")
ASYNC_DEFAULT_SOURCE = ("vLLM's default since v0.14 ('[Core] Enable async scheduling by default', vllm-project/vllm "
                        "PR #27614, in the weekly summary of 2026-01-02); the launch script does not pass --no-async-scheduling "
                        "(no InferenceX script did before August 2026)")
SEQS = {"max_num_seqs": 1024}  # vLLM's default running limit on these GPUs, where the script sets none

# (GPU, engine version, measured date) -> the settings the simulator takes for a point of ISL `isl`
# and TP `tp`, and where they come from.
LAUNCHES = {
    ("h200", "0.16.0", "2026-03-01"): (lambda isl, tp: dict(SEQS), (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_h200.sh at a36346339 (the post-merge sweep of #831): "
        f"--tensor-parallel-size 4, --gpu-memory-utilization 0.95; {DEFAULTS}")),
    ("h200", "0.18.0", "2026-03-27"): (lambda isl, tp: {"ep": tp, **SEQS}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_h200.sh at 1d5cae141 (#958, merged at the measured time): "
        "--enable-expert-parallel on every run (the script tests EP_SIZE -ge 1, and EP_SIZE defaults to 1), so the "
        f"experts ran expert-parallel over the TP GPUs although the source's row says EP 1; {DEFAULTS}")),
    ("h200", "0.18.0", "2026-03-28"): (lambda isl, tp: {"ep": tp, **SEQS}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_h200.sh at 0f78cf4eb (the post-merge sweep of #966): "
        "--enable-expert-parallel on every run (EP_SIZE -ge 1), although the row says EP 1; "
        f"--no-enable-prefix-caching; {DEFAULTS}")),
    ("h100", "0.18.0", "2026-03-27"): (lambda isl, tp: {"ep": tp, "max_num_seqs": 256}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_h100.sh at 1d5cae141 (#958, merged at the measured time): "
        "--enable-expert-parallel (EP 4), --max-num-seqs 256, --compilation-config cudagraph_mode PIECEWISE "
        "(not modelled: the simulator captures whole decode steps); no --kv-cache-dtype or "
        "--max-num-batched-tokens")),
    ("b200", "0.17.0", "2026-03-11"): (lambda isl, tp: {"ep": tp, **SEQS}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_b200.sh at f342df18e (#757, merged at the measured time): "
        "--enable-expert-parallel on every run (EP_SIZE -ge 1), although the row says EP 1; --block-size 32 "
        "(the simulator's pages are 16 tokens); VLLM_USE_FLASHINFER_MOE_FP8=0 and VLLM_MOE_USE_DEEP_GEMM=0 (vLLM's "
        f"Triton FP8 MoE, not the FlashInfer kernel the simulator prices the B200's experts with); {DEFAULTS}")),
    ("b200", "0.17.0", "2026-03-28"): (lambda isl, tp: {"ep": tp, **SEQS}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_b200.sh at 0f78cf4eb (the post-merge sweep of #966): "
        "--enable-expert-parallel on every run (EP_SIZE -ge 1), although the row says EP 1; --block-size 32; "
        "VLLM_USE_FLASHINFER_MOE_FP8=0 and VLLM_MOE_USE_DEEP_GEMM=0 (vLLM's Triton FP8 MoE); "
        f"{DEFAULTS}")),
}
for date, commit, pr in (("2026-04-03", "bddbf4031", "#947"), ("2026-04-08", "5d037dd4a", "#1010"),
                          ("2026-04-22", "41ed82dc1", "#1068")):
    LAUNCHES[("b200", "0.19.0", date, "fp8")] = (lambda isl, tp: {"kv_dtype": "fp8", "max_num_batched_tokens": 2 * isl, **SEQS}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp8_b200.sh at {commit} (the post-merge sweep of {pr}): "
        "--kv-cache-dtype fp8, --max-num-batched-tokens $((ISL*2)), --stream-interval 20, expert parallel only "
        "where EP_SIZE > 1 (not in these rows); no --max-num-seqs (vLLM's default, 1,024)"))
for date, commit, pr in (("2026-04-08", "79bd988e9", "#996"), ("2026-04-22", "13962fcfa", "#1069")):
    LAUNCHES[("b200", "0.19.0", date, "fp4")] = (lambda isl, tp: {"kv_dtype": "fp8", "max_num_batched_tokens": 2 * isl, **SEQS}, (
        f"{IX} benchmarks/single_node/minimaxm2.5_fp4_b200.sh at {commit} (the post-merge sweep of {pr}; "
        "checkpoint nvidia/MiniMax-M2.5-NVFP4): --kv-cache-dtype fp8, --max-num-batched-tokens $((ISL*2)), "
        "--stream-interval 20; no --max-num-seqs (vLLM's default, 1,024)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", help="silicon_sample.csv (default: the local mirror of ai-dynamo/aiconfigurator)")
    ap.add_argument("--reserved", default=str(RESERVED))
    a = ap.parse_args()
    rows = read_rows(a.csv)
    match = ["gpu", "engine", "model", "precision", "tp", "isl", "osl", "concurrency"]
    try:
        reserved_doc = json.loads(Path(a.reserved).read_text())
        fields = reserved_doc["fields"]
        reserved = {tuple(str(k[fields.index(f)]).lower() for f in match) for k in reserved_doc["keys"]}
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as e:
        fail(f"{a.reserved}: cannot read the reserved keys ({e}); refusing to write points without them")
    kept = {}
    for r in rows:
        if r["model_path"] != "MiniMaxAI/MiniMax-M2.5" or r["backend"] != "vllm" or r["mode"] != "agg":
            continue
        if r["system"] not in CHIPS or note_field(r["silicon_data_source"], "wip") == "True":
            continue
        if int(float(r["attention_dp_size"] or 1)) != 1:
            continue
        gpu, tp = CHIPS[r["system"]], int(float(r["tp_size"]))
        users = int(note_field(r["silicon_data_source"], "silicon_concurrency") or r["batch_size"])
        isl, osl = int(r["isl"]), int(r["osl"])
        if tuple(str(v).lower() for v in (gpu, "vllm", "minimax-m2.5", r["precision"], tp, isl, osl, users)) in reserved:
            continue
        measured = note_field(r["silicon_data_source"], "measured")[:10]
        launch = LAUNCHES.get((gpu, r["backend_version"], measured)) or \
            LAUNCHES.get((gpu, r["backend_version"], measured, r["precision"]))
        if launch is None:
            sys.exit(f"{r['id']}: no launch traced for {gpu} vLLM {r['backend_version']} measured {measured}")
        settings = launch[0](isl, tp)
        ep = settings.get("ep", 1)
        key = (gpu, r["precision"], tp, ep, isl, osl, users)
        rank = (tuple(int(x) for x in r["backend_version"].split(".")), measured, r["id"])
        if key not in kept or rank > kept[key][0]:
            kept[key] = (rank, r, settings, launch[1])
    points = []
    for (gpu, precision, tp, ep, isl, osl, users), (_, r, settings, source) in sorted(kept.items()):
        pid = f"{gpu}-vllm-minimax-m2.7-{precision}-tp{tp}" + (f"-ep{ep}" if ep > 1 else "") + f"-{isl}x{osl}-c{users}"
        p = {"id": pid, "hardware": gpu, "engine": "vllm", "engine_version": r["backend_version"],
             "model": "minimax-m2.7", "published_model": "minimax-m2.5",
             # the checkpoint served: the fp4 scripts serve NVIDIA's NVFP4 one, whatever the row's model_path
             "checkpoint": "nvidia/MiniMax-M2.5-NVFP4" if r["precision"] == "fp4" else r["model_path"],
             "precision": precision, "tp": tp, "isl": isl, "osl": osl, "concurrency": users,
             "published": {"ttft_ms": round(float(r["silicon_ttft_ms"]), 4), "tpot_ms": round(float(r["silicon_tpot_ms"]), 4)},
             "source_row": r["id"], "source_note": r["silicon_data_source"]}
        p.update(settings)
        p["run_config_source"] = source
        # vLLM's default from 0.14 (these rows: 0.16-0.19), which no MiniMax script turns off.
        if tuple(int(x) for x in r["backend_version"].split(".")[:2]) < (0, 14):
            sys.exit(f"{r['id']}: vLLM {r['backend_version']} predates asynchronous scheduling by default: say how it ran")
        p["async_scheduling"] = True
        p["async_scheduling_source"] = ASYNC_DEFAULT_SOURCE
        points.append(p)
    doc = {
        "about": ("MiniMax-M2.5's published vLLM serving points on the H100, H200 and B200, none a configuration reserved "
                  "in shared/validation/reserved_serving_keys.json, each run as its InferenceX launch script ran it "
                  "(run_config_source). Written by calibration/published/minimax_points.py (its docstring says which rows "
                  "and why). The simulator serves them on models/minimax-m2.7.json (the same architecture; "
                  "published_model names the measured one). Compared by scripts/fidelity_published.sh (docs/fidelity.md, "
                  "\"The signed errors by group\"); no fit reads them."),
        "source": {"name": "NVIDIA aiconfigurator silicon sample (InferenceX-style runs: random prompts, fixed ISL/OSL, "
                           "fixed concurrency; silicon_ttft_ms / silicon_tpot_ms)",
                   "url": URL, "license": "Apache-2.0", "commit": AIC_COMMIT},
        "assumptions": [
            "Prompts are InferenceX random prompts: input and output uniform in [0.8, 1] x ISL and OSL "
            "(utils/bench_serving/benchmark_serving.py --random-range-ratio 0.8; tycoon --workload random's default), "
            "10 x concurrency prompts after 2 x concurrency warm-ups.",
            "Published TTFT and TPOT are compared with our mean TTFT and mean TPOT.",
            "ep is the expert parallelism that ran (the launch script's), which is not the source's moe_ep_size where "
            "the script enabled it unconditionally.",
        ],
        "points": points,
    }
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
