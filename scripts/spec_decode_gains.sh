#!/bin/bash
# Speculative decoding's gain at load (docs/fidelity.md, "Speculative decoding at load"): output
# tok/s with speculative decoding over the same run without it, GPT-OSS-120B FP4 TP1, closed-loop
# users, seed 1. SGLang on H100 with MT-Bench-like 128/1,024 prompts and EAGLE-3 k=3 @ 2.42 (the
# published series in calibration/published/spec_decode_serving.json), vLLM on H200 with 1,000/500
# prompts at k=3 @ 2.31 (seed 000) and k=7 @ 2.76 (the H200 recipe).
# Usage: scripts/spec_decode_gains.sh [build/tycoon]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
t=${1:-$root/build/tycoon}
[[ -x $t ]] || { echo "spec_decode_gains.sh: $t not found (cmake --build build --target tycoon)" >&2; exit 2; }
gain() {  # hardware engine drafts acceptance isl osl users
  local base spec
  base=$("$t" benchmark --hardware "$1" --model gpt-oss-120b --engine "$2" --precision fp4 --tp 1 --spec-tokens 0 \
    --isl "$5" --osl "$6" --random-range-ratio 1 --concurrency "$7" --seed 1 --json | jq .output_tok_per_s_per_gpu)
  spec=$("$t" benchmark --hardware "$1" --model gpt-oss-120b --engine "$2" --precision fp4 --tp 1 --spec-tokens "$3" \
    --acceptance "$4" --isl "$5" --osl "$6" --random-range-ratio 1 --concurrency "$7" --seed 1 --json |
    jq .output_tok_per_s_per_gpu)
  printf '%-6s %-6s k=%s @%s  users %4s  without %8.1f  with %8.1f  gain %.3f\n' "$1" "$2" "$3" "$4" "$7" "$base" \
    "$spec" "$(jq -n "$spec / $base")"
}
for n in 1 8 16 64 256; do gain h100 sglang 3 2.42 128 1024 "$n"; done
for n in 1 16 64 256; do gain h200 vllm 3 2.31 1000 500 "$n"; done
for n in 1 16 64 256; do gain h200 vllm 7 2.76 1000 500 "$n"; done
