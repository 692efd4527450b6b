#!/usr/bin/env bash
# Builds the loader fuzz target with clang + libFuzzer + ASan/UBSan and runs it for N seconds,
# seeded with the real catalog files. Usage: scripts/fuzz.sh [seconds]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${1:-30}
out=build/fuzz
mkdir -p "$out" "$out/corpus"
srcs=(sim/data/*.cpp sim/perf/calibration_profile.cpp tests/fuzz/fuzz_loaders.cpp)
bin="$out/fuzz_loaders"
newest=$(ls -t "${srcs[@]}" sim/data/*.h sim/perf/calibration_profile.h | head -1)
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
"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -print_final_stats=1 "$out/corpus" 2>&1 | tail -4
