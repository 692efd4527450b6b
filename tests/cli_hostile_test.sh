#!/usr/bin/env bash
# Hostile input through the real binary: every attack exits 2 with one
# line naming the file (or flag), the field and the reason; no output overwrites an input; no
# content of a file outside the inputs reaches an output.
set -u
tycoon="$1"
case $tycoon in /*) ;; */*) tycoon=$PWD/$tycoon ;; esac
fail=0
h=$(mktemp -d)
trap 'rm -rf "$h"' EXIT
# Exit 2, one line on stderr, and that line holds every one of the given words.
refused() {  # name 'expected text' command...
  local name=$1 want=$2; shift 2
  local err; err=$(timeout 120 "$@" 2>&1 >/dev/null); local got=$?
  local lines; lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$got" != 2 ] || [ "$lines" != 1 ]; then echo "FAIL $name: exit $got, $lines lines: $err"; fail=1; return; fi
  case $err in *"$want"*) ;; *) echo "FAIL $name: '$err' lacks '$want'"; fail=1 ;; esac
}

# --- 2. one way to open a file: /dev/zero as a trace, a FIFO, a folder --------------------------
bench=(benchmark --hardware h200 --model llama-3.1-8b --engine vllm --precision fp8 --tp 1)
refused trace-dev-zero "/dev/zero: /: is a device, not a trace" "$tycoon" "${bench[@]}" --trace /dev/zero
mkfifo "$h/pipe.jsonl"
refused trace-fifo "is a FIFO (named pipe), not a trace" "$tycoon" "${bench[@]}" --trace "$h/pipe.jsonl"
# --- 4. figures bounded: huge timestamps with file and line, BOM accepted ------------------------
printf '{"arrival_s": 0, "input_tokens": 8, "output_tokens": 2}\n{"arrival_s": 1e300, "input_tokens": 8, "output_tokens": 2}\n' \
  >"$h/huge.jsonl"
refused trace-huge-timestamp "huge.jsonl:2: /arrival_s: too large: 1e+300 s" "$tycoon" "${bench[@]}" --trace "$h/huge.jsonl"
printf '\xef\xbb\xbf{"arrival_s": 0, "input_tokens": 8, "output_tokens": 2}\n' >"$h/bom.jsonl"
timeout 120 "$tycoon" "${bench[@]}" --trace "$h/bom.jsonl" >/dev/null 2>"$h/bom.err" ||
  { echo "FAIL a trace with a byte order mark: $(cat "$h/bom.err")"; fail=1; }
# --- 7. the long-run guard: warm-up requests, users ----------------------------------------------
refused long-warmup "--warmup-requests 2000000000 + " "$tycoon" "${bench[@]}" --concurrency 4 --num-requests 8 \
  --warmup-requests 2000000000
refused long-warmup-estimate "h of wall time" "$tycoon" "${bench[@]}" --concurrency 4 --num-requests 8 \
  --warmup-requests 2000000000
refused long-users "--concurrency: 100000 users at once" "$tycoon" "${bench[@]}" --concurrency 100000 --num-requests 100000

# --- 1. the class kit ----------------------------------------------------------------------------
"$tycoon" class new --id hostile --scenario prices-only --seed 7 --days 1 --out "$h/class.json" >/dev/null ||
  { echo "FAIL class new"; fail=1; }
mkdir -p "$h/subs" "$h/outside"
: >"$h/nothing.jsonl"
"$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student Ada --out "$h/subs/ada.json" >/dev/null ||
  { echo "FAIL class submit"; fail=1; }
cp "$h/subs/ada.json" "$h/ada.keep"
refused save-dev-zero "cannot read save file /dev/zero: is a device, not a save" \
  "$tycoon" class submit "$h/class.json" --save /dev/zero --student Ada --out "$h/s.json"
# Outputs never overwrite an input: the class file, a submission, a student's subs/report.json.
refused submit-onto-class "--out: $h/class.json is the class file, an input of this command" \
  "$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student Bea --out "$h/class.json"
refused submit-onto-log "is the command log, an input" \
  "$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student Bea --out "$h/nothing.jsonl"
refused report-onto-submission "--out: $h/subs/ada.json is submission ada.json, an input" \
  "$tycoon" class report "$h/class.json" "$h/subs" --out "$h/subs/ada.json"
refused report-json-onto-submission "--json-out: $h/subs/ada.json is submission ada.json" \
  "$tycoon" class report "$h/class.json" "$h/subs" --json-out "$h/subs/ada.json"
cmp -s "$h/subs/ada.json" "$h/ada.keep" || { echo "FAIL a refused report changed a submission"; fail=1; }
# A student who names a submission report.json: the default report JSON would clobber it.
"$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student Bea --out "$h/subs/report.json" >/dev/null ||
  { echo "FAIL class submit as report.json"; fail=1; }
refused report-default-onto-student "report.json is submission report.json, an input" \
  "$tycoon" class report "$h/class.json" "$h/subs"
grep -q '"student": "Bea"' "$h/subs/report.json" || { echo "FAIL the student's report.json was clobbered"; fail=1; }
rm "$h/subs/report.json"
# A file that is no class report is not replaced without --force.
echo "my notes" >"$h/notes.html"
refused report-onto-notes "--out: $h/notes.html exists and is not a class report (HTML)" \
  "$tycoon" class report "$h/class.json" "$h/subs" --out "$h/notes.html"
"$tycoon" class report "$h/class.json" "$h/subs" --out "$h/notes.html" --force >/dev/null ||
  { echo "FAIL class report --force"; fail=1; }
# A symbolic link in the submissions folder: rejected by name, its target never read or quoted.
echo "root:SECRET-HASH-LINE:19000:0:99999:7:::" >"$h/outside/shadow"
ln -s "$h/outside/shadow" "$h/subs/b-link.json"
echo "SECRET-IN-FOLDER not json" >"$h/subs/c-text.json"
out=$("$tycoon" class report "$h/class.json" "$h/subs" --json --out "$h/r.html") || { echo "FAIL class report with a link"; fail=1; }
echo "$out" | grep -q "b-link.json: is a symbolic link, not a submission" || { echo "FAIL link not rejected by name: $out"; fail=1; }
grep -l SECRET "$h/r.html" "$h/r.json" >/dev/null 2>&1 && { echo "FAIL a file's content reached the report"; fail=1; }
echo "$out" | grep -q SECRET && { echo "FAIL a file's content reached stdout"; fail=1; }
rm "$h/subs/b-link.json" "$h/subs/c-text.json"
# Student names normalised: "ada " (case, space) and "A<zero-width>da" are Ada again.
"$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student "ada " --out "$h/subs/b.json" >/dev/null
"$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student $'A\u200bda' --out "$h/subs/c.json" >/dev/null
out=$("$tycoon" class report "$h/class.json" "$h/subs" --json --out "$h/r.html")
[ "$(echo "$out" | grep -c "a second submission from")" = 2 ] || { echo "FAIL look-alike names count as new students: $out"; fail=1; }
# A class made from a scenario file outside the data root: refused, not a class nobody can submit to.
sed 's/"id": "classroom-prices-only"/"id": "elsewhere-prices"/' \
  "$(cd "$(dirname "$0")/.." && pwd)/scenarios/classroom/prices-only.json" >"$h/outside/elsewhere.json"
refused class-scenario-outside-root "--scenario: $h/outside/elsewhere.json is not the data root's scenario" \
  "$tycoon" class new --id c --scenario "$h/outside/elsewhere.json" --out "$h/x.json"
# Invalid UTF-8: exit 2 with a clear message, never "internal error".
refused student-not-utf8 "--student: the name is not valid UTF-8 text" \
  "$tycoon" class submit "$h/class.json" --commands "$h/nothing.jsonl" --student $'Ada\xff' --out "$h/x.json"
refused title-not-utf8 "title: not valid UTF-8 text" \
  "$tycoon" class new --id c --scenario prices-only --title $'Week \xff' --out "$h/x.json"

# A roster binds a name to a code only its student has: a forged name (no code, or a classmate's
# code) is rejected even when its file sorts first, and the real student ranks.
printf 'Ada Lovelace\nBea Bell\n' >"$h/names.txt"
"$tycoon" class new --id rostered --scenario prices-only --seed 7 --days 1 --out "$h/rclass.json" \
  --roster "$h/names.txt" --roster-out "$h/roster.json" >/dev/null || { echo "FAIL class new --roster"; fail=1; }
grep -q '"code"' "$h/rclass.json" && { echo "FAIL the class file holds the codes"; fail=1; }
code_of() { python3 -c 'import json,sys; print([s["code"] for s in json.load(open(sys.argv[1]))["students"] if s["student"] == sys.argv[2]][0])' "$h/roster.json" "$1"; }
mkdir -p "$h/rsubs"
"$tycoon" class submit "$h/rclass.json" --commands "$h/nothing.jsonl" --student "Ada Lovelace" --code "$(code_of "Ada Lovelace")" \
  --out "$h/rsubs/c-ada.json" >/dev/null || { echo "FAIL class submit --code"; fail=1; }
"$tycoon" class submit "$h/rclass.json" --commands "$h/nothing.jsonl" --student "Ada Lovelace" --out "$h/rsubs/a-forged.json" >/dev/null
"$tycoon" class submit "$h/rclass.json" --commands "$h/nothing.jsonl" --student "ada lovelace" --code "$(code_of "Bea Bell")" \
  --out "$h/rsubs/b-forged.json" >/dev/null
out=$("$tycoon" class report "$h/rclass.json" "$h/rsubs" --roster "$h/roster.json" --json --out "$h/rr.html") ||
  { echo "FAIL class report --roster"; fail=1; }
echo "$out" | grep -q '"file": "c-ada.json"' && echo "$out" | grep -q "no student code: the class has a roster" &&
  echo "$out" | grep -q "its student code is not the one the roster gives 'Ada Lovelace'" ||
  { echo "FAIL class report --roster: $out"; fail=1; }
grep -q "$(code_of "Bea Bell")" "$h/rr.html" "$h/rr.json" && { echo "FAIL a code reached the report"; fail=1; }
refused roster-other-class "is the roster of class rostered, not of hostile" \
  "$tycoon" class report "$h/class.json" "$h/subs" --roster "$h/roster.json" --out "$h/rx.html"

# --- 4/5/6. sweep parts, merge and the folder lock ----------------------------------------------
sw="$h/sw"
mkdir -p "$sw"
cat >"$sw/tiny.json" <<'SPEC'
{"format_version": 1, "name": "tiny", "title": "hostile sweep",
 "base": {"model": "llama-3.1-8b", "hardware": "h200", "engine": "vllm", "precision": "fp8"},
 "workloads": [{"name": "short", "kind": "random", "input_tokens": 256, "output_tokens": 32}],
 "concurrency": [2], "seeds": [1, 2], "prices": [{"name": "market"}], "requests_per_user": 3}
SPEC
for i in 0 1; do "$tycoon" sweep "$sw/tiny.json" --shard "$i/2" --out "$sw/parts" --jobs 1 >/dev/null 2>&1; done
"$tycoon" sweep merge "$sw"/parts/part-*-of-2.json --out "$sw/m" --no-png >/dev/null 2>"$sw/m.err" ||
  { echo "FAIL sweep merge of honest parts: $(cat "$sw/m.err")"; fail=1; }
# shard.count sizes nothing before it is bounded.
for count in 2e8 1e18 200000000; do
  sed "s/\"count\":2/\"count\":$count/" "$sw/parts/part-0-of-2.json" >"$sw/count.json"
  refused "merge-shard-count-$count" "count.json: /shard/count: too large" \
    "$tycoon" sweep merge "$sw/count.json" "$sw/parts/part-1-of-2.json" --out "$sw/m3"
done
# Figures checked as the journal's are: P50 above P99, ten times the throughput.
python3 - "$sw" <<'PY'
import json, sys
sw = sys.argv[1]
part = json.load(open(f"{sw}/parts/part-0-of-2.json"))
p = json.loads(json.dumps(part)); p["points"][0]["perf"]["ttft_s"][1] = 99.0
json.dump(p, open(f"{sw}/p50.json", "w"))
p = json.loads(json.dumps(part)); p["points"][0]["perf"]["output_tok_per_s_per_gpu"] *= 10
p["points"][0]["perf"]["input_tok_per_s_per_gpu"] *= 10
json.dump(p, open(f"{sw}/x10.json", "w"))
p = json.loads(json.dumps(part)); p["points"][0]["perf"]["num_gpus"] = 64
json.dump(p, open(f"{sw}/gpus.json", "w"))
PY
refused merge-p50-above-p99 "p50.json: /points/0/perf/ttft_s: point 0: percentiles out of order" \
  "$tycoon" sweep merge "$sw/p50.json" "$sw/parts/part-1-of-2.json" --out "$sw/m3"
refused merge-throughput-x10 "x10.json: /points/0/perf/output_tok_per_s_per_gpu: point 0:" \
  "$tycoon" sweep merge "$sw/x10.json" "$sw/parts/part-1-of-2.json" --out "$sw/m3"
refused merge-gpus "/perf/num_gpus: point 0: is 64, the point's deployment has 1" \
  "$tycoon" sweep merge "$sw/gpus.json" "$sw/parts/part-1-of-2.json" --out "$sw/m3"
[ ! -e "$sw/m3" ] || { echo "FAIL a refused merge created its output folder"; fail=1; }
# --out / and a folder of other files: refused before any work.
refused merge-out-root "--out: / holds files and no sweep" \
  "$tycoon" sweep merge "$sw"/parts/part-*-of-2.json --out /
refused sweep-out-root "--out: / holds files and no sweep" "$tycoon" sweep "$sw/tiny.json" --out / --no-png
# The lock: a second writer into a folder a live process holds exits 2 naming the first.
mkdir -p "$sw/locked"
# (flock(1) holds the lock for 5 s; its child inherits the descriptor, so the test waits it out.)
flock "$sw/locked/.tycoon.lock" -c "echo 'pid 4242 (tycoon sweep other.json)' >'$sw/locked/.tycoon.lock'; sleep 5" &
holder=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$sw/locked/.tycoon.lock" ] && break; sleep 0.2; done
refused sweep-locked "--out: $sw/locked is being written by pid 4242 (tycoon sweep other.json)" \
  "$tycoon" sweep "$sw/tiny.json" --out "$sw/locked" --no-png --jobs 1
wait "$holder"
# A lock left by a dead process is taken over.
echo "pid 999999 (a run that was killed)" >"$sw/locked/.tycoon.lock"
"$tycoon" sweep "$sw/tiny.json" --out "$sw/locked" --no-png --jobs 1 >/dev/null 2>"$sw/l.err" ||
  { echo "FAIL a stale lock was not taken over: $(cat "$sw/l.err")"; fail=1; }
[ ! -e "$sw/locked/.tycoon.lock" ] || { echo "FAIL the lock outlived the sweep"; fail=1; }

# --- the class server: what it cannot serve from is refused before it listens -----------------
refused serve-no-web "--web: $h/outside has no index.html" "$tycoon" class serve --port 0 --db "$h/c.sqlite" --web "$h/outside"
refused serve-db-folder "--db: $h is a folder" "$tycoon" class serve --port 0 --db "$h"
printf 'not a database, but long enough to look like a header of one..................................\n' >"$h/junk.sqlite"
refused serve-db-junk "--db: $h/junk.sqlite: SQLite: file is not a database" "$tycoon" class serve --port 0 --db "$h/junk.sqlite"
refused serve-port-range "--port" "$tycoon" class serve --port 70000
exec 3< <(python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)')
held_pid=$!
held_port=$(head -1 <&3)
refused serve-port-in-use "--port: cannot listen on 127.0.0.1:$held_port" \
  "$tycoon" class serve --host 127.0.0.1 --port "$held_port" --db "$h/c2.sqlite"
exec 3<&-
kill "$held_pid" 2>/dev/null

[ "$fail" = 0 ] && echo "cli hostile-input tests passed"
exit "$fail"
