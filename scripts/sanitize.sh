#!/usr/bin/env bash
# Assertions and sanitizers: the unit tests and a short random-scenario soak
# under AddressSanitizer and UndefinedBehaviorSanitizer, asserts on, in the one sanitizer build
# (build-asan/, clang -O1: scripts/lib/asan_tree.sh; scripts/fuzz.sh runs its fuzz targets).
# Any sanitizer report fails the run (halt_on_error; UBSan does not recover).
#
# Usage: scripts/sanitize.sh [--build-only | --no-build] [soak_games]
#   soak_games: default 6. TYCOON_SANITIZE_JOBS: processes at a time (default: the machine's cores).
#   TYCOON_SANITIZE_SEED: the soak's seed (default: random, printed).
# The balance table (~3 min in Release, far longer here) is skipped, and so are the test cases of
# the suite "whole-games" (doctest::test_suite: class reports replaying twenty games, week-long
# strategies, the pricing forecast played out; ~6 min of the ~11 here): they play the same code
# paths as the campaign soak below, many times over, and their inputs' parsers are fuzzed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/phases.sh
source scripts/lib/pool.sh
source scripts/lib/asan_tree.sh
trap phase_exit EXIT
build=1 run=1
case "${1:-}" in
  --build-only) build=1 run=0; shift ;;
  --no-build) build=0; shift ;;
esac
games=${1:-6}
jobs=${TYCOON_SANITIZE_JOBS:-$(nproc)}
scripts/setup.sh --no-build

if [ "$build" = 1 ]; then
  phase "sanitize: build (build-asan/: clang -O1, ASan + UBSan, asserts on)"
  asan_make tycoon tycoon_tests $(printf 'fuzz_%s ' "${asan_fuzz_targets[@]}")
fi
[ "$run" = 1 ] || exit 0

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
phase "sanitize: unit tests (balance and whole games skipped; $jobs at a time)"
# One process per test file; the slowest files first (test_server_http: ~120 s here, the longest).
doctest_jobs asan "$asan_build/tycoon_tests" "test_server_http test_game_golden test_game_save_advisor test_history test_advisor_bots test_advisor_checks" \
  -tce='*balance*' -tse=whole-games | run_pool "$jobs" "$asan_build/unit-logs" >"$asan_build/unit-tests.log" || {
  cat "$asan_build/unit-tests.log"
  exit 1
}
# The whole log is in the file; here, what each file ran.
grep -h '^\[doctest\] test cases:' "$asan_build"/unit-logs/*.log | awk -F'|' '
  { split($1, a, ":"); n += a[2]; p += $2; s += $4 }
  END { printf "sanitize: %d test cases, %d passed, %d skipped (log: '"$asan_build"'/unit-tests.log)\n", n, p, s }'

phase "sanitize: soak, $games random games ($jobs at a time)"
policies=(accept-all reject-all verify-then-decide)
levels=(scenarios/campaign/*.json scenarios/tutorial.json)
seed=${TYCOON_SANITIZE_SEED:-$RANDOM}
echo "soak seed $seed (rerun with TYCOON_SANITIZE_SEED=$seed)"
for ((i = 0; i < games; ++i)); do
  s=$((seed * 131 + i))
  level=${levels[$((s % ${#levels[@]}))]}
  policy=${policies[$((s % 3))]}
  printf 'game-%s\techo %q; %q run %q --seed %s --days 1 --advisor %s --no-counterfactuals >/dev/null\n' "$i" \
    "-- $level seed $s advisor $policy, 1 day" "$asan_build/tycoon" "$level" "$s" "$policy"
done | run_pool "$jobs" "$asan_build/soak-logs"

phase "sanitize: tycoon soak"
"$asan_build/tycoon" soak --runs "$games" --seed "$seed" --max-days 1
phase_end
echo "== sanitize: clean"
