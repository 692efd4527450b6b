"""Fold eager_repeat.py's samples into the committed end-to-end rows (runs anywhere, no GPU).

For every eager row of e2e.jsonl / e2e_tp2.jsonl that eager_repeat.py measured again, the row's
median_s becomes the median over all fresh processes that timed it (the run_all process and the
repeats); `process_medians_s` lists them, `processes` counts them, and `single_process_median_s`
keeps the run_all value. Other rows are copied unchanged.

usage: python3 aggregate_repeats.py REPEAT_DIR DATA_DIR [DATA_DIR_TP2]
  e.g. python3 aggregate_repeats.py /tmp/repeats ../data/h200 ../data/h200x2
"""

import glob
import json
import os
import statistics
import sys


def key(r):
    return (r["model"], r["mode"], r["tp"], r["batch"], r.get("context"), r.get("prompt_len"),
            bool(r["cuda_graph"]))


def fold(path, samples):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    changed = 0
    for r in rows:
        extra = samples.get(key(r))
        if not extra or r["cuda_graph"]:
            continue
        base = r.get("single_process_median_s", r["median_s"])
        meds = [base] + extra
        r["single_process_median_s"] = base
        r["process_medians_s"] = meds
        r["processes"] = len(meds)
        r["median_s"] = statistics.median(meds)
        r["aggregate"] = "median over fresh processes (run_all + eager_repeat.py)"
        changed += 1
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    os.replace(tmp, path)
    return changed


def main():
    rep_dir, data = sys.argv[1], sys.argv[2]
    data2 = sys.argv[3] if len(sys.argv) > 3 else None
    for pattern, target in (("tp1_r*/e2e.jsonl", os.path.join(data, "e2e.jsonl")),
                            ("tp2_r*/e2e_tp2.jsonl",
                             os.path.join(data2, "e2e_tp2.jsonl") if data2 else None)):
        if target is None:
            continue
        samples = {}
        for f in sorted(glob.glob(os.path.join(rep_dir, pattern))):
            for line in open(f, encoding="utf-8"):
                if line.strip():
                    r = json.loads(line)
                    samples.setdefault(key(r), []).append(r["median_s"])
        print(f"{target}: {fold(target, samples)} rows now medians over fresh processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
