#!/usr/bin/env bash
# Assertions and sanitizers (issue 19, fault 7): a Debug build (asserts on) with AddressSanitizer
# and UndefinedBehaviorSanitizer, running the unit tests and a short random-scenario soak.
# Any sanitizer report fails the run (halt_on_error; UBSan does not recover).
#
# Usage: scripts/sanitize.sh [soak_games]   (default 6; TYCOON_SANITIZE_JOBS, default 2)
# The balance table (~3 min in Release, far longer here) is skipped: it plays the same code paths
# as the campaign soak below, many times over.
# Measured 2026-12-01 on the shared 2-core dev machine (load ~18), `TYCOON_SANITIZE_SEED=4242
# scripts/sanitize.sh 4`: build ~27 min from a cold cache, unit tests ~10 min (190 cases passed,
# 0 sanitizer reports), one 1-day campaign game with the advisor ~40 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
games=${1:-6}
jobs=${TYCOON_SANITIZE_JOBS:-2}
build=build-sanitize
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
launcher=()  # ccache where installed (not needed: CI builds cold)
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTYCOON_BUILD_UI=OFF -DTYCOON_BUILD_BENCH=OFF \
  "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
nice cmake --build "$build" -j"$jobs" --target tycoon tycoon_tests
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
echo "== sanitize: unit tests (Debug, asserts on, ASan + UBSan; balance skipped)"
"$build/tycoon_tests" -tce='*balance*'
echo "== sanitize: soak, $games random games (campaign levels, random seeds, the advisor deciding)"
policies=(accept-all reject-all verify-then-decide)
levels=(scenarios/campaign/*.json scenarios/tutorial.json)
seed=${TYCOON_SANITIZE_SEED:-$RANDOM}
echo "soak seed $seed (rerun with TYCOON_SANITIZE_SEED=$seed)"
for ((i = 0; i < games; ++i)); do
  s=$((seed * 131 + i))
  level=${levels[$((s % ${#levels[@]}))]}
  policy=${policies[$((s % 3))]}
  echo "-- $level seed $s advisor $policy, 1 day"
  "$build/tycoon" run "$level" --seed "$s" --days 1 --advisor "$policy" --no-counterfactuals >/dev/null
done
echo "== sanitize: tycoon soak (random games with bad commands and save/load, random serving runs; conservation checked)"
"$build/tycoon" soak --runs "$games" --seed "$seed" --max-days 1
echo "== sanitize: clean"
