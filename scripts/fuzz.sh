#!/usr/bin/env bash
# Fuzzes every input kind: the libFuzzer targets (tests/fuzz/fuzz_<kind>.cpp) of the one sanitizer
# build (build-asan/: clang, ASan + UBSan, asserts on; scripts/lib/asan_tree.sh, built here if
# missing or out of date), seeded with the repository's own files, run into build/fuzz.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   all targets (or the named ones) for SECONDS in total
#                                            (default 120), two at a time (one per core)
#   TYCOON_FUZZ_RUNS=1000000 scripts/fuzz.sh 0 [TARGET...]
#                                            each target for that many executions instead (the
#                                            README's long run; -jobs 1, one target per core)
#   TYCOON_FUZZ_TIMEOUT=60 scripts/fuzz.sh ...  an input counts as a hang after that many seconds
#                                            (default 10; on a machine shared with builds, a cold
#                                            serving window alone can take 10 s of wall time)
#
# Targets: hardware_card model_card trace scenario save commands sweep_spec sweep_journal cli.
# A crash, a hang (an input running over 10 s, or TYCOON_FUZZ_TIMEOUT), a leak, undefined behaviour or an exception other
# than the input errors fails the run; the input that did it is left in build/fuzz/<target>/ as
# crash-*, timeout-* or leak-* (replay it: build/fuzz/bin/fuzz_<target> FILE). One line per target
# goes to stdout and build/fuzz/summary.txt: executions, rate, new inputs, seconds, result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/phases.sh
source scripts/lib/asan_tree.sh
trap phase_exit EXIT
total=${1:-120}
shift || true
all=("${asan_fuzz_targets[@]}")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
out=build/fuzz
mkdir -p "$out"
scripts/setup.sh --no-build

# Build (a no-op when scripts/sanitize.sh has built them).
phase "fuzz: build the targets (build-asan/)"
asan_make $(printf 'fuzz_%s ' "${targets[@]}") >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; echo "fuzz: build failed (log: $out/build.log)"; exit 1; }
mkdir -p "$out/bin"
for t in "${targets[@]}"; do cp "$asan_build/fuzz_$t" "$out/bin/"; done

# Seeds: the repository's files, each prefixed with the byte that selects its loader where a
# target has several; saves and a sweep journal are made by the targets themselves
# (TYCOON_FUZZ_WRITE_SEEDS=DIR: write seeds and exit).
seed() {  # seed TARGET NAME [PREFIX_BYTE] < file
  local dir=$out/seeds/$1
  mkdir -p "$dir"
  if [ -n "${3:-}" ]; then { printf "$3"; cat; } > "$dir/$2"; else cat > "$dir/$2"; fi
}
rm -rf "$out/seeds"
i=0
for t in "${targets[@]}"; do
  case $t in
    hardware_card)
      for f in hardware_db/accelerators/*.json; do seed $t acc$((i++)) '\x00' < "$f"; done
      for f in hardware_db/engines/*.json; do seed $t eng$((i++)) '\x01' < "$f"; done
      for f in hardware_db/calibrated/*.json; do [ -f "$f" ] && seed $t cal$((i++)) '\x02' < "$f"; done ;;
    model_card)
      for f in models/*.json; do seed $t mod$((i++)) '\x00' < "$f"; done
      for f in models/recipes/*.json; do seed $t rec$((i++)) '\x01' < "$f"; done ;;
    trace)
      printf '%s\n' '{"arrival_s": 0, "input_tokens": 10, "output_tokens": 2, "session_id": "a"}' \
        '{"arrival_s": 1.5, "input_tokens": 7, "output_tokens": 1, "prefix_id": "p", "prefix_tokens": 4}' | seed $t t0
      printf '%s\n' '# comment' '{"arrival_s": 0.25, "input_tokens": 4000, "output_tokens": 300}' | seed $t t1 ;;
    scenario)
      while IFS= read -r f; do seed $t "sc$((i++))" < "$f"; done < <(find scenarios tests/ui/fixtures -name '*.json' ! -name '*.sweep.json' 2>/dev/null | sort) ;;
    commands)
      while IFS= read -r f; do seed $t "log$((i++))" < "$f"; done < <(find scenarios tests/web -name '*.jsonl' | sort) ;;
    sweep_spec)
      for f in scenarios/analyst/*.sweep.json; do seed $t "spec$((i++))" < "$f"; done ;;
    class_kit)
      printf '%s' '{"format": "inference-tycoon-roster", "version": 1, "class_id": "econ-101", "students": [{"student": "Ada", "code": "7K2M-QX4P-9D3F-HR8T"}]}' |
        seed $t r0 '\x01'
      printf '%s' '{"format": "inference-tycoon-submission", "version": 1, "checksum": "fnv1a64:0", "payload": {}}' |
        seed $t s0 '\x00'
      printf 'A\xe2\x80\x8bda L\xce\xbfvelace' | seed $t n0 '\x02'
      printf '# week 3\nAda\n\n  Bea \n' | seed $t l0 '\x03' ;;
    cli)
      printf '%s\n' list hardware | seed $t a0
      printf '%s\n' predict --model llama-3.1-8b --hardware h200 --decode-batch 8 --context 2048 | seed $t a1
      printf '%s\n' predict --model gpt-oss-120b --hardware h200 --tp 2 --prefill-tokens 1024 --json | seed $t a2
      printf '%s\n' benchmark --model llama-3.1-8b --hardware h200 --arrival poisson --rate 5 --num-requests 20 | seed $t a3
      printf '%s\n' run default --days 2 --seed 7 --out /nonexistent/x | seed $t a4
      printf '%s\n' sweep scenarios/analyst/price-for-40pct-margin.sweep.json --jobs 2 --resume | seed $t a5
      printf '%s\n' advise default --verify 3 --search-seeds 2 | seed $t a6
      printf '%s\n' list models --data /nonexistent | seed $t a7
      printf '%s\n' validate --hardware h200 --max-error nan | seed $t a8 ;;
  esac
  case $t in save | sweep_journal)
    mkdir -p "$out/seeds/$t"
    TYCOON_FUZZ_WRITE_SEEDS="$out/seeds/$t" "$out/bin/fuzz_$t" > "$out/seeds-$t.log" 2>&1 ||
      { tail -5 "$out/seeds-$t.log"; echo "fuzz: writing the seeds of $t failed"; exit 1; } ;;
  esac
done

# Run: two targets at a time, each with its own growing corpus (build/fuzz/<target>/corpus).
phase "fuzz: ${#targets[@]} targets, ${total} s in all"
if [ -n "${TYCOON_FUZZ_RUNS:-}" ]; then
  limit=(-runs="$TYCOON_FUZZ_RUNS")
else
  per=$(( total * 2 / ${#targets[@]} ))
  [ "$per" -ge 5 ] || per=5
  limit=(-max_total_time="$per")
fi
run_one() {
  local t=$1 dir=$out/$1
  mkdir -p "$dir/corpus"
  local start=$SECONDS rc=0
  (cd "$dir" && exec ../bin/fuzz_$t "${limit[@]}" -timeout="${TYCOON_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=3 \
      -print_final_stats=1 corpus "../seeds/$t") > "$dir/log" 2>&1 || rc=$?
  local execs rate added
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo "?")
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo "?")
  added=$(grep -o 'stat::new_units_added: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo "?")
  local result=ok
  if [ "$rc" != 0 ]; then
    result="FAILED (exit $rc; $(ls "$dir" | grep -E '^(crash|timeout|leak|oom)-' | head -1 || true); log: $dir/log)"
  fi
  printf '%-14s %10s executions %7s/s %6s new inputs %5ss  %s\n' "$t" "$execs" "$rate" "$added" "$((SECONDS - start))" "$result"
  [ "$rc" = 0 ]
}
status=0
: > "$out/summary.txt"
n=${#targets[@]}
for ((k = 0; k < n; k += 2)); do
  pids=()
  for t in "${targets[@]:k:2}"; do
    run_one "$t" > "$out/$t.line" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  for t in "${targets[@]:k:2}"; do cat "$out/$t.line" | tee -a "$out/summary.txt"; done
done
[ "$status" = 0 ] && echo "fuzz: ${#targets[@]} targets, 0 crashes, 0 hangs" || echo "fuzz: FAILED (see above)"
exit $status
