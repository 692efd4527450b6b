#!/usr/bin/env bash
# Builds the loader fuzz target with clang + libFuzzer + ASan/UBSan and runs it for N seconds,
# seeded with the real catalog files and a trace. Usage: scripts/fuzz.sh [seconds] [extra libFuzzer flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${1:-30}
out=build/fuzz
mkdir -p "$out" "$out/corpus"
srcs=(sim/data/*.cpp sim/perf/calibration_profile.cpp sim/traffic/trace.cpp tests/fuzz/fuzz_loaders.cpp)
bin="$out/fuzz_loaders"
newest=$(ls -t "${srcs[@]}" sim/data/*.h sim/perf/calibration_profile.h sim/traffic/trace.h | head -1)
if [ ! -x "$bin" ] || [ "$newest" -nt "$bin" ]; then
  clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I. "${srcs[@]}" -o "$bin"
fi
# Seeds: each catalog file, prefixed with the byte that selects its loader.
i=0
for f in hardware_db/accelerators/*.json; do { printf '\x00'; cat "$f"; } > "$out/corpus/acc$((i++))"; done
for f in hardware_db/engines/*.json; do { printf '\x01'; cat "$f"; } > "$out/corpus/eng$((i++))"; done
for f in models/*.json; do { printf '\x02'; cat "$f"; } > "$out/corpus/mod$((i++))"; done
for f in models/recipes/*.json; do { printf '\x03'; cat "$f"; } > "$out/corpus/rec$((i++))"; done
for f in hardware_db/calibrated/*.json; do [ -f "$f" ] && { printf '\x04'; cat "$f"; } > "$out/corpus/cal$((i++))"; done
{ printf '\x05'; printf '{"arrival_s": 0, "input_tokens": 10, "output_tokens": 2, "session_id": "a"}\n{"arrival_s": 1.5, "input_tokens": 7, "output_tokens": 1, "prefix_id": "p", "prefix_tokens": 4}\n'; } > "$out/corpus/trace0"
shift || true
"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -print_final_stats=1 "$@" "$out/corpus" 2>&1 | tail -4
