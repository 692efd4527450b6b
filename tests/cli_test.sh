#!/usr/bin/env bash
# CLI contract: help works, bad flags and bad values exit 2 with one line, catalogs list.
set -u
tycoon="$1"
fail=0
check() {  # name expected_code command...
  local name=$1 want=$2; shift 2
  local out; out=$("$@" 2>&1); local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $name: exit $got, want $want"; echo "$out" | head -5; fail=1; fi
}
check_one_line_error() {  # name command...
  local name=$1; shift
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  local lines; lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$got" != 2 ] || [ "$lines" != 1 ]; then echo "FAIL $name: exit $got, $lines lines: $err"; fail=1; fi
}
check help 0 "$tycoon" --help
check list-help 0 "$tycoon" list --help
check predict-help 0 "$tycoon" predict --help
check list-hardware 0 "$tycoon" list hardware
check list-models 0 "$tycoon" list models
check list-engines 0 "$tycoon" list engines
check list-recipes 0 "$tycoon" list recipes
check_one_line_error unknown-flag "$tycoon" list hardware --bogus
check_one_line_error unknown-command "$tycoon" frobnicate
check_one_line_error bad-catalog-name "$tycoon" list gpus
check_one_line_error bad-tp "$tycoon" predict --hardware h200 --model llama-3.1-8b --tp 0 --decode-batch 1
check_one_line_error unknown-model "$tycoon" predict --hardware h200 --model no-such-model --decode-batch 1
check_one_line_error unknown-hardware "$tycoon" predict --hardware h999 --model llama-3.1-8b --decode-batch 1
check_one_line_error missing-model-file "$tycoon" predict --hardware h200 --model-file /nonexistent.json --decode-batch 1
check_one_line_error bad-data-root "$tycoon" --data /nonexistent list models
"$tycoon" list hardware | grep -q "h200" || { echo "FAIL list hardware lacks h200"; fail=1; }
"$tycoon" list models --json | grep -q '"sources"' || { echo "FAIL list models --json lacks sources"; fail=1; }
out=$("$tycoon" predict --hardware h200 --model llama-3.1-8b --engine torch-reference --precision bf16 --tp 1 \
  --decode-batch 16 --context 1024 --json) || { echo "FAIL predict"; fail=1; }
echo "$out" | grep -q '"iteration_s"' || { echo "FAIL predict --json lacks iteration_s"; fail=1; }
[ "$fail" = 0 ] && echo "cli contract: all checks passed"
exit $fail
