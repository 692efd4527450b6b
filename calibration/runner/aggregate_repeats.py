"""Fold eager_repeat.py's samples into the committed end-to-end rows (runs anywhere, no GPU).

For every eager row of e2e.jsonl / e2e_tp2.jsonl that eager_repeat.py measured again, the row's
median_s becomes the median over all fresh processes that timed it (the run_all process and the
repeats); `process_medians_s` lists them, `processes` counts them, and `single_process_median_s`
keeps the run_all value. Other rows are copied unchanged.

Committed measurements are never rewritten in place: the folded rows go to a new file in OUT_DIR
(which must not be the data folder, and whose files must not exist yet); review the diff, then
replace the committed file by hand in its own commit.

usage: python3 aggregate_repeats.py REPEAT_DIR DATA_DIR OUT_DIR [DATA_DIR_TP2 OUT_DIR_TP2]
  e.g. python3 aggregate_repeats.py /tmp/repeats ../data/h200 /tmp/agg ../data/h200x2 /tmp/agg_tp2
"""

import glob
import json
import os
import statistics
import sys


def key(r):
    return (r["model"], r["mode"], r["tp"], r["batch"], r.get("context"), r.get("prompt_len"),
            bool(r["cuda_graph"]))


def fold(path, out_path, samples):
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
    # "x": never replaces a file (a committed measurement or an earlier aggregate).
    with open(out_path, "x", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return changed


def output_path(data_dir, out_dir, name):
    if os.path.realpath(out_dir) == os.path.realpath(data_dir):
        raise SystemExit(f"aggregate_repeats: OUT_DIR {out_dir} is the data folder: committed measurements "
                         "are never rewritten in place")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, name)
    if os.path.exists(out):
        raise SystemExit(f"aggregate_repeats: {out} exists: choose a new OUT_DIR")
    return out


def main():
    args = sys.argv[1:]
    if len(args) not in (3, 5):
        raise SystemExit(__doc__)
    rep_dir, data, out = args[0], args[1], args[2]
    data2, out2 = (args[3], args[4]) if len(args) == 5 else (None, None)
    for pattern, target, out_dir, name in (("tp1_r*/e2e.jsonl", data, out, "e2e.jsonl"),
                                           ("tp2_r*/e2e_tp2.jsonl", data2, out2, "e2e_tp2.jsonl")):
        if target is None:
            continue
        samples = {}
        for f in sorted(glob.glob(os.path.join(rep_dir, pattern))):
            for line in open(f, encoding="utf-8"):
                if line.strip():
                    r = json.loads(line)
                    samples.setdefault(key(r), []).append(r["median_s"])
        src = os.path.join(target, name)
        dst = output_path(target, out_dir, name)
        print(f"{dst}: {fold(src, dst, samples)} rows of {src} now medians over fresh processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
