#!/usr/bin/env python3
"""Writes calibration/published/b300_serving.json: the NVIDIA B300's published vLLM serving points, as
rows calibration/fit/fit_published.py can fit the B300's levels to and compare with (the fit was tried
and not adopted: docs/calibration.md, "The B300 on its published vLLM results").

    calibration/published/b300_rows.py [--csv silicon_sample.csv] > calibration/published/b300_serving.json

The source is NVIDIA aiconfigurator's silicon sample at 095f58a51 (InferenceX-style runs; read from
the CSV given, else from a local mirror of ai-dynamo/aiconfigurator with `git show`). Selected: every
B300 vLLM row of aggregated serving without attention data parallelism (the simulator has none;
every B300 row with expert parallelism is among those, and its recorded split is not what ran: the
source's converter took TP x EP as the GPU count, where InferenceX's TP is the GPU count), not marked
work in progress,
of a model whose architecture a card here has: MiniMax-M2.5 (models/minimax-m2.7.json: the card's
layer groups are read from both M2.5's and M2.7's configs, which agree) and Kimi-K2.5
(models/kimi-k2.6.json: the same shape as K2 and K2.5). Where one configuration (model, precision,
TP, EP, ISL, OSL, users) was measured more than once, the newest engine version is kept (then the
newest measurement). None of the B300 is reserved in ../shared/validation/reserved_serving_keys.json
(fit_published.py checks every row against it, by the published model's name too).

Each point gives two rows, its mean TPOT and its mean TTFT, compared with one simulated run. The
split: points sorted by id, every third point (the first, the fourth, ...) is fitted, the other two
held out: a simulated candidate costs one run per fitted point, and a larger held-out share is the
stronger test. How each point was run (InferenceX's launch script at the measurement date) is in
RUN_CONFIGS below, each with its source.
"""
import argparse
import json
import sys

from silicon_sample import URL, note_field, read_rows

SOURCE = ("NVIDIA aiconfigurator silicon sample (InferenceX-style runs: random prompts, fixed ISL/OSL, fixed "
          f"concurrency; silicon_ttft_ms / silicon_tpot_ms), {URL}")
MODELS = {  # published checkpoint -> (card here, name for the reserved-key check)
    "MiniMaxAI/MiniMax-M2.5": ("minimax-m2.7", "minimax-m2.5"),
    "moonshotai/Kimi-K2.5": ("kimi-k2.6", "kimi-k2.5"),
}

# How the runs were made, by (card, precision, engine version): InferenceX's launch settings that
# the simulator takes (its KV precision, token budget, running limit) as a function of the point's
# ISL and users, each with its source. Every traced row ran vllm/vllm-openai:v0.19.0-cu130, no
# speculative decoding, prefix caching off, a fresh server per point, and InferenceX's client
# (utils/bench_serving/benchmark_serving.py: 10 x users prompts, 2 x users warm-ups, random-range-ratio
# 0.8, ignore-eos), which is what `tycoon benchmark --workload random` runs by default.
IX = "SemiAnalysisAI/InferenceX"
VLLM_SEQS = ("vLLM's default --max-num-seqs on a GPU of 70 GiB or more, 1024 (vllm/engine/arg_utils.py, "
             "get_batch_defaults; the script sets none)")
MINIMAX = (f"{IX} benchmarks/single_node/minimaxm2.5_{{p}}_b300.sh at {{commits}} (the post-merge sweeps of "
           "{prs}, workflow runs {runs}, whose dates the rows carry): --kv-cache-dtype fp8, --max-num-batched-tokens "
           "$((ISL*2)), --gpu-memory-utilization 0.90, --no-enable-prefix-caching, --stream-interval 20"
           "{extra}; " + VLLM_SEQS)
RUN_CONFIGS = {
    ("minimax-m2.7", "fp8", "0.19.0"): {
        "settings": lambda isl, users: {"kv_dtype": "fp8", "max_num_batched_tokens": 2 * isl, "max_num_seqs": 1024},
        "source": MINIMAX.format(p="fp8", commits="340d7854c and 0c2467c15", prs="#1054 and #1106",
                                 runs="758 and 797", extra=", --block-size 32"),
    },
    ("minimax-m2.7", "fp4", "0.19.0"): {
        "settings": lambda isl, users: {"kv_dtype": "fp8", "max_num_batched_tokens": 2 * isl, "max_num_seqs": 1024},
        "source": MINIMAX.format(p="fp4", commits="22d0f12f7 and 633fd2377", prs="#1055 and #1107", runs="754 and 798",
                                 extra=" (checkpoint nvidia/MiniMax-M2.5-NVFP4)"),
    },
    ("kimi-k2.6", "fp4", "0.19.0"): {
        "settings": lambda isl, users: {"max_num_seqs": users},
        "source": (f"{IX} benchmarks/single_node/kimik2.5_fp4_b300.sh at f34a83b25 (the post-merge sweep of #1100, "
                   "workflow run 789; checkpoint nvidia/Kimi-K2.5-NVFP4): --max-num-seqs $CONC, "
                   "--gpu-memory-utilization 0.90, --no-enable-prefix-caching, "
                   "--compilation_config.pass_config.fuse_allreduce_rms true; KV precision and token budget left at "
                   "vLLM's defaults"),
    },
}


def points(rows):
    kept = {}
    for r in rows:
        if r["system"] != "b300_sxm" or r["backend"] != "vllm" or r["mode"] != "agg":
            continue
        if r["model_path"] not in MODELS or int(float(r["attention_dp_size"] or 1)) != 1:
            continue
        # Rows the source marks work in progress (2026-04-03: a nightly MiniMax image and Kimi on
        # v0.17.0) match no launch configuration in InferenceX's history: left out.
        if note_field(r["silicon_data_source"], "wip") == "True":
            continue
        card, published_model = MODELS[r["model_path"]]
        tp, ep = int(float(r["tp_size"])), int(float(r["moe_ep_size"] or 1))
        users = int(note_field(r["silicon_data_source"], "silicon_concurrency") or r["batch_size"])
        key = (card, r["precision"], tp, ep, int(r["isl"]), int(r["osl"]), users)
        measured = note_field(r["silicon_data_source"], "measured")
        rank = (tuple(int(x) if x.isdigit() else 0 for x in r["backend_version"].split(".")), measured, r["id"])
        if key not in kept or rank > kept[key][0]:
            kept[key] = (rank, r, published_model)
    out = []
    for key, (_, r, published_model) in kept.items():
        card, precision, tp, ep, isl, osl, users = key
        pid = f"b300-vllm-{card}-{precision}-tp{tp}" + (f"-ep{ep}" if ep > 1 else "") + f"-{isl}x{osl}-c{users}"
        out.append((pid, r, card, published_model, precision, tp, ep, isl, osl, users))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", help="silicon_sample.csv (default: the local mirror of ai-dynamo/aiconfigurator)")
    a = ap.parse_args()
    rows = []
    for i, (pid, r, card, published_model, precision, tp, ep, isl, osl, users) in enumerate(points(read_rows(a.csv))):
        version = r["backend_version"]
        cfg = RUN_CONFIGS.get((card, precision, version))
        if cfg is None:
            sys.exit(f"{pid}: no run configuration known for {card} {precision} vLLM {version}")
        for metric, column in (("tpot_ms", "silicon_tpot_ms"), ("ttft_ms", "silicon_ttft_ms")):
            row = {"id": f"{pid}-{metric.split('_')[0]}", "split": "fit" if i % 3 == 0 else "held-out", "gpu": "b300",
                   "engine": "vllm", "model": card, "published_model": published_model, "precision": precision,
                   "tp": tp, "ep": ep, "adp": 1, "isl": isl, "osl": osl, "concurrency": users}
            row.update(cfg["settings"](isl, users))
            row.update({"mode": "serving", "metric": metric, "published": round(float(r[column]), 4),
                        "engine_version": version,
                        "source": f"{SOURCE}, row {r['id']} ({r['silicon_data_source']})",
                        "run_config_source": cfg["source"]})
            rows.append(row)
    doc = {
        "about": ("Published serving measurements of the NVIDIA B300 under vLLM, as rows calibration/fit/fit_published.py "
                  "can fit the chip's calibration levels to and compare with (--at-levels); the fit was tried and not "
                  "adopted, the B300 keeps the lent curves (docs/calibration.md, \"The B300 on its published vLLM "
                  "results\"). Written by calibration/published/b300_rows.py (its docstring says which rows "
                  "and why); no B300 is at hand here. Each point as two rows, its mean TPOT and its mean TTFT, both "
                  "compared with one simulated run (the InferenceX-style client of scripts/fidelity_published.sh). "
                  "Split: points sorted by id, every third fitted (the first of each three), the others held out. "
                  "The base is the H200's measured curves as the simulator lends them to the B300 (their "
                  "throughput term scaled by its datasheet peaks, their latency term kept: tycoon fit --hardware b300 "
                  "--in-use), so the levels fit what that scaling leaves out."),
        "chip": "b300",
        "base": "in-use",
        "levels": ["mem", "comp", "lat"],
        "modes": {"serving": ("aiconfigurator silicon sample, InferenceX-style runs: random prompts (tycoon --workload "
                              "random: input uniform in [0.8, 1] x ISL, output uniform in [0.8, 1] x OSL), closed loop at "
                              "`concurrency` users, 2 x concurrency warm-up requests; the published silicon_tpot_ms "
                              "(metric tpot_ms) and silicon_ttft_ms (metric ttft_ms) are compared with our mean TPOT and "
                              "mean TTFT.")},
        "rows": rows,
    }
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
