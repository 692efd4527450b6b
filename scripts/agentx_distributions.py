#!/usr/bin/env python3
"""Writes sim/traffic/agentic_distributions.h: the agentic-coding shape's distributions, measured
from the public AgentX / kv-cache-tester traces.

Usage: scripts/agentx_distributions.py TRACE_DIR SOURCE_COMMIT > sim/traffic/agentic_distributions.h
       clang-format-14 -i sim/traffic/agentic_distributions.h   # the house format, as committed

TRACE_DIR is the traces/ directory of github.com/callanjfox/kv-cache-tester (Apache-2.0), the
anonymised Claude Code sessions that InferenceX's AgentX replays (InferenceX PR #1201). Each file
is one conversation: requests with input and output token counts, the client's pause before each
(`think_time`, else the gap between timestamps), and 64-token block hashes of the prompt.

What the replay does, and so what is measured here (docs/fidelity.md, "AgentX"):
  * only conversations whose every request fits the model's window run (seed 000: GPT-OSS-120B's
    131,072-token window fits 82 of AgentX's 393 sessions; "their median request is about
    67,000 input tokens"); sub-agent markers are skipped;
  * a user's first request of a conversation misses the cache entirely (per-conversation cache
    busting, InferenceX issue #1632); later requests reuse the prefix the hashes say they share
    with the request before;
  * pauses are the recorded ones, written here uncapped, in the three ways replays have timed
    them: the client's own pause as the trace records it (`think_time`: kv-cache-tester and
    AIPerf's think-time-only mode of May 2026); the gap between the two requests' starts (`t` -
    previous `t`: AIPerf's inferencex-agentx-mvp scenario from June to late July 2026 waited one
    such gap after the previous request completed, the recorded answer's own time `api_time`
    included); and that gap less the previous answer's recorded time (max(0, gap - api_time), the
    gap itself where no api_time is recorded: AIPerf's end-to-start delay from late July 2026,
    ai-dynamo/aiperf weka_trace.py _end_to_start_delay_ms). `think_time` and the end-to-start gap
    differ where the trace's think_time is longer than the gap between the request starts (a
    pause that cannot have run from the previous answer's end; mostly where api_time is missing);
    the replay caps them (60 s: kv-cache-tester --max-delay, AIPerf's inter-turn delay cap and
    trace_idle_gap_cap_seconds=60.0; WorkloadParams::max_pause_s applies the cap);
  * the users present when the run starts join their conversation at a random request between
    25% and 75% of it (kv-cache-tester --advance-min/--advance-max; calculate_start_index);
    users that come later start conversations from their first request (--recycle).

A conversation's length and growth go together (a long one that fits the window grows slowly),
so each fitting conversation is kept as one row of kConversations: its requests, its first and
its last prompt. A generated session picks a row, draws the new tokens of each of its turns, and
scales them together so that the conversation ends at the row's last prompt.

Every table is 65 quantiles (p = 0, 1/64, ..., 1); the generator draws by interpolating between
them. The two end points are placed so that each end bin keeps the mean of its values (a heavy
tail's largest value would otherwise pull the mean up). Each conversation weighs by its requests, as a replay that walks it does.
"""
import glob
import math
import json
import os
import statistics
import sys

WINDOW = 131072
MAX_PAUSE_S = 60.0  # the replay's default cap, applied by the generator
BREAK_KEPT = 0.9  # a turn that keeps less than 90% of the previous prompt rewrote its history
N_Q = 64


def quantiles(xs):
    xs = sorted(xs)
    out = []
    for k in range(N_Q + 1):
        pos = k / N_Q * (len(xs) - 1)
        i = int(pos)
        f = pos - i
        v = xs[i] if i + 1 >= len(xs) else xs[i] * (1 - f) + xs[i + 1] * f
        out.append(v)
    # The end points are not the sample's min and max: each is placed so that the linear piece
    # of its end bin has the mean of the values in that bin (heavy tails keep their mean).
    n = len(xs)
    top = xs[int(n * (N_Q - 1) / N_Q):]
    bottom = xs[:max(1, int(n / N_Q))]
    out[N_Q] = max(out[N_Q - 1], 2 * statistics.mean(top) - out[N_Q - 1])
    out[0] = min(out[1], max(0.0, 2 * statistics.mean(bottom) - out[1]))
    return out


def table_mean(q):
    return sum((q[i] + q[i + 1]) / 2 for i in range(N_Q)) / N_Q


def shared_prefix_tokens(prev, cur, block):
    c = 0
    for a, b in zip(prev["hash_ids"], cur["hash_ids"]):
        if a != b:
            break
        c += 1
    return min(c * block, cur["in"], prev["in"])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    trace_dir, commit = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(trace_dir, "*.json")))
    if not files:
        sys.exit(f"{trace_dir}: no *.json traces")
    convs = []
    for f in files:
        with open(f) as fh:
            d = json.load(fh)
        rs = [r for r in d["requests"] if r.get("type") != "subagent"]
        if rs and max(r["in"] for r in rs) <= WINDOW:
            convs.append((d.get("block_size", 64), rs))

    first_prompt, n_requests, new_tokens, kept_on_break, output, pause = [], [], [], [], [], []
    start_gap, end_to_start = [], []
    join_prompt, join_remaining, rows, join_model = [], [], [], []
    turns = breaks = 0
    hit = total = 0
    for block, rs in convs:
        n = len(rs)
        first_prompt.append(rs[0]["in"])
        n_requests.append(n)
        total += rs[0]["in"]
        output.append(rs[0]["out"])
        for i in range(1, n):
            prev, cur = rs[i - 1], rs[i]
            reuse = shared_prefix_tokens(prev, cur, block)
            turns += 1
            hit += reuse
            total += cur["in"]
            if reuse < BREAK_KEPT * prev["in"]:
                breaks += 1
                kept_on_break.append((reuse / prev["in"], cur["in"] / prev["in"]))
            else:
                new_tokens.append(cur["in"] - reuse)
            output.append(cur["out"])
            t = cur.get("think_time")
            if t is None:
                t = cur["t"] - prev["t"]
            pause.append(max(t, 0.0))
            start_gap.append(max(cur["t"] - prev["t"], 0.0))
            api = prev.get("api_time")
            api = api if isinstance(api, (int, float)) and math.isfinite(api) else 0.0
            end_to_start.append(max(cur["t"] - prev["t"] - max(api, 0.0), 0.0))
        # kv-cache-tester calculate_start_index: uniform over [int(0.25 n), min(int(0.75 n), n - 1)]
        lo, hi = int(n * 0.25), min(int(n * 0.75), n - 1)
        rows.append((n, rs[0]["in"], rs[-1]["in"]))
        if n > 1 and hi >= lo:
            # The replay picks a conversation first and then its join point, so each conversation
            # weighs the same: average its join points, then average over conversations.
            points = range(lo, hi + 1)
            join_prompt.append(statistics.mean(rs[s]["in"] for s in points))
            join_remaining.append(statistics.mean(n - s for s in points))
            join_model.append(statistics.mean(rs[0]["in"] + (rs[-1]["in"] - rs[0]["in"]) * s / (n - 1) for s in points))

    def emit(name, xs, comment):
        q = quantiles(xs)
        print(f"// {comment}")
        print(f"// {len(xs)} values; mean {statistics.mean(xs):.6g} (table {table_mean(q):.6g}), "
              f"median {statistics.median(xs):.6g}, min {min(xs):.6g}, max {max(xs):.6g}")
        body = ", ".join(f"{v:.6g}" for v in q)
        print(f"inline constexpr Quantiles {name} = {{{body}}};")
        print()

    print("// Generated by scripts/agentx_distributions.py; do not edit. Re-run it to regenerate:")
    print("//   scripts/agentx_distributions.py <kv-cache-tester>/traces " + commit + " > THIS_FILE; clang-format-14 -i THIS_FILE")
    print("// Source: github.com/callanjfox/kv-cache-tester, traces/ at commit " + commit)
    print("// (Apache-2.0): the anonymised agentic-coding sessions InferenceX's AgentX replays.")
    print("// See the script for what is measured and why.")
    print("#pragma once")
    print()
    print("#include <array>")
    print("#include <cstdint>")
    print()
    print("namespace tycoon::traffic::agentx {")
    print()
    print(f"inline constexpr int kQuantileSteps = {N_Q};")
    print("using Quantiles = std::array<double, kQuantileSteps + 1>;  // p = 0, 1/64, ..., 1")
    print()
    print(f"inline constexpr std::int64_t kWindowTokens = {WINDOW};  // the window the conversations were chosen by")
    print(f"inline constexpr int kTraceFiles = {len(files)};")
    print(f"inline constexpr int kConversationsThatFit = {len(convs)};")
    print(f"inline constexpr double kMaxPauseS = {MAX_PAUSE_S:g};  // the replay's default cap on a pause")
    print(f"// Prefix tokens the hashes say each request shares with the one before, over all prompt")
    print(f"// tokens of conversations replayed from their start: {hit / total:.4f}.")
    print(f"inline constexpr double kTraceReuseFraction = {hit / total:.4f};")
    print(f"// Turns that keep less than {BREAK_KEPT:g} of the previous prompt (the agent rewrote or compacted")
    print(f"// its history): {breaks} of {turns}.")
    print(f"inline constexpr double kRewriteProbability = {breaks / turns:.6f};")
    print()
    print("// The prompt a user joins at (25-75% into a conversation picked at random; all new tokens),")
    print(f"// each conversation weighed once (the mean of its join points), over the {len(join_prompt)} with more than")
    print(f"// one request: mean {statistics.mean(join_prompt):.6g}, median {statistics.median(join_prompt):.6g}")
    print("// and as the generator places it (the row's first prompt plus its mean growth per turn):")
    print(f"//   mean {statistics.mean(join_model):.6g}, median {statistics.median(join_model):.6g}")
    print(f"// Requests left from the join, the joined one included: mean {statistics.mean(join_remaining):.6g}.")
    print("struct Conversation {")
    print("  int requests;")
    print("  std::int64_t first_prompt_tokens;  // all new: cache-busted")
    print("  std::int64_t last_prompt_tokens;")
    print("};")
    print(f"// Requests: mean {statistics.mean(n_requests):.6g}, median {statistics.median(n_requests):.6g}; first prompt: mean "
          f"{statistics.mean(first_prompt):.6g}, median {statistics.median(first_prompt):.6g}.")
    print(f"inline constexpr std::array<Conversation, {len(rows)}> kConversations = {{{{")
    rows.sort()
    for i in range(0, len(rows), 4):
        print("    " + " ".join(f"{{{n}, {f}, {l}}}," for n, f, l in rows[i:i + 4]))
    print("}};")
    print()
    print("// The mean of the table below (what a draw averages), the unit of a row's growth.")
    print(f"inline constexpr double kMeanNewTokensPerTurn = {table_mean(quantiles(new_tokens)):.6g};")
    emit("kNewTokensPerTurn", new_tokens,
         "Tokens a request adds after the prefix it shares with the previous request (the previous "
         "answer, tool results, the user's words), on turns that keep the previous prompt.")
    print("// Each measured rewrite: the share of the previous prompt kept as prefix, and the new prompt's")
    print("// size over the previous one's (most rewrites change early content at about the same size; a")
    print(f"// few compact the history). Kept: mean {statistics.mean(k for k, _ in kept_on_break):.4f}; size ratio: median "
          f"{statistics.median(r for _, r in kept_on_break):.4f}.")
    print("struct Rewrite {")
    print("  double kept_fraction;")
    print("  double size_ratio;")
    print("};")
    print(f"inline constexpr std::array<Rewrite, {len(kept_on_break)}> kRewrites = {{{{")
    kept_on_break.sort()
    for i in range(0, len(kept_on_break), 4):
        print("    " + " ".join(f"{{{k:.4f}, {r:.4f}}}," for k, r in kept_on_break[i:i + 4]))
    print("}};")
    print()
    emit("kOutputTokens", output, "Output tokens per request.")
    emit("kPauseSeconds", pause, "The client's pause before a request after the first, as recorded (uncapped).")
    emit("kStartGapSeconds", start_gap,
         "The gap between the starts of a request and the one before it, as recorded (uncapped): the "
         "previous answer's recorded time (api_time) and the client's pause.")
    emit("kEndToStartSeconds", end_to_start,
         "The gap between the starts less the previous answer's recorded time, max(0, gap - api_time) "
         "(the gap where api_time is missing), uncapped: AIPerf's end-to-start delay.")
    print("}  // namespace tycoon::traffic::agentx")


if __name__ == "__main__":
    main()
