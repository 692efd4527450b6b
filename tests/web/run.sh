#!/usr/bin/env bash
# Browser tests of the web build: builds it if needed (scripts/web --build-only), installs
# playwright-core (npm ci), serves build-web/ on 127.0.0.1, then
#   1. play_test.mjs: every step of the tutorial with real clicks on the control its ring is on
#      (the clock held while a step waits; a proposal benchmarked and decided on its verdict), a
#      bridge command, top speed, every later proposal benchmarked and decided on its verdict, the
#      debrief's comparison runs (every judged advisor call right), save / reload / import, budgets
#      (screenshots and report.json under build-web/web-test/); again at 1024x640 up to the
#      debrief (the ring scrolls Deploy into view; under web-test/play-1024x640/); and a second
#      run on tutorial seed ${TYCOON_REGRESSION_SEED:-3}, whose first benchmark measures a regression, that
#      follows the ring to Reject (web-test/play-regression/); then the save the first exported is
#      handed in to a class and replayed natively (tycoon class new / submit / report);
#   1b. class_link_test.mjs: the page opened with a class link (?class=…&scenario=…&seed=…&days=…
#      &history=…) starts that class and shows its id; a bad link shows its reason; the class is
#      played to the end and its export is submitted to the same class made by `tycoon class new`;
#   2. layout_test.mjs: every main screen at three window sizes, checked for labels that do not
#      fit (tycoon.textFit()) and controls under the page's buttons or the status strip; Menu's
#      save is listed on the start screen, also after a reload;
#   3. freeze_test.mjs: the tutorial, campaign level 1 and the sandbox at 16x with the advisor
#      attached; fails on any gap between animation frames over 250 ms;
#   4. determinism: the same scenario, seed and command log (which accepts an advisor proposal)
#      natively (`tycoon run --advisor on --json`) and in the browser (tycoon_run through the
#      bridge), compared by compare_summaries.py;
#   5. save_load_test.mjs: that game saved and loaded at three hours drawn from the seed, in the
#      browser, ends with the same save file as the browser's and the native uninterrupted games.
#   6. class_server_test.mjs: `tycoon class serve --web build-web`; three students play from their
#      links (one to the end, one copying her, one abandoning), the page hands their games in; the
#      instructor page creates the class and roster, shows the live leaderboard, the flags and the
#      charts, sets the deadline (a late hand-in refused) and downloads the gradebook CSV.
# Exits non-zero when any of them fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
out=build-web/web-test
scenario=tests/ui/fixtures/scenarios/ui-test-tutorial.json
seed=${TYCOON_DET_SEED:-7}
commands=tests/web/determinism.jsonl

scripts/web --build-only
if [ ! -d tests/web/node_modules/playwright-core ]; then
  (cd tests/web && npm ci --no-audit --no-fund)
fi
# The native CLI for the determinism comparison (built only if out of date).
native=${TYCOON_NATIVE:-build/tycoon}
if [ -z "${TYCOON_NATIVE:-}" ]; then
  [ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTYCOON_UNITY_BUILD=ON >/dev/null
  cmake --build build --target tycoon -j "${JOBS:-2}" >/dev/null
fi

rm -rf "$out"
mkdir -p "$out"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory build-web >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/index.html" >/dev/null && break
  sleep 0.1
done
url="http://127.0.0.1:$port/index.html"

status=0
echo "== browser: play test (1280x800)"
node tests/web/play_test.mjs "$url" "$out" "$scenario" || status=1
echo "== browser: play test at 1024x640, the tutorial and its debrief"
PLAY_VIEWPORT=1024x640 PLAY_TUTORIAL_ONLY=1 node tests/web/play_test.mjs "$url" "$out/play-1024x640" "$scenario" || status=1
# A seed whose first tutorial benchmark measures a regression (tests/web/find_regression_seed.mjs).
echo "== browser: play test after a measured regression (tutorial seed ${TYCOON_REGRESSION_SEED:-3}): the ring, and the run, end on Reject"
PLAY_VIEWPORT=1024x640 PLAY_SEED=${TYCOON_REGRESSION_SEED:-3} node tests/web/play_test.mjs "$url" "$out/play-regression" "$scenario" || status=1
# The budgets measured (transfer size, ready time, frame times, worst simulation step).
python3 - "$out/report.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
b = r.get("budgets", {})
t, rd, ts = b.get("transfer_bytes", {}), b.get("ready_ms", {}), b.get("top_speed", {})
if t: print(f"budget: transfer {t['js_wasm_data'] / 1e6:.2f} MB (wasm+js+data; <= 6 MB)")
if rd: print(f"budget: page ready {rd['value']:.0f} ms (<= 3000 ms)")
if ts:
    print(f"budget: top speed {ts['hours_per_s']:.1f} game h/s; frame interval median {ts['frame_interval_ms']['median']:.1f} ms, "
          f"frame work median {ts['frame_work_ms']['median']:.1f} ms, worst frame {ts['frame_work_ms']['max']:.1f} ms, "
          f"worst simulation step {ts['worst_sim_step_ms']:.1f} ms")
for n in r.get("notes", []): print("note:", n)
PY

echo "== classroom: the save the browser exported, handed in to a class and replayed natively (tycoon class)"
cls="$out/class"
mkdir -p "$cls/subs"
if "$native" class new --id web-class --scenario tutorial --out "$cls/class.json" >/dev/null &&
  "$native" class submit "$cls/class.json" --save "$out/exported-save.json" --student browser --out "$cls/subs/browser.json" &&
  "$native" class report "$cls/class.json" "$cls/subs" --out "$cls/report.html" >"$cls/report.txt"; then
  cat "$cls/report.txt"
  grep -q "1 ranked, 0 rejected" "$cls/report.txt" || { echo "FAIL: the browser's submission was not ranked"; status=1; }
else
  echo "FAIL: the browser's exported save is not a valid class submission"
  status=1
fi

echo "== classroom: a class link opens that exact class; its export is a valid submission of the same class"
link="class=web-link&scenario=classroom-prices-only&seed=31&days=1&history=2"
if node tests/web/class_link_test.mjs "$url" "$out" "$link" &&
  "$native" class new --id web-link --scenario prices-only --seed 31 --days 1 --history-days 2 --out "$cls/link-class.json" >/dev/null &&
  mkdir -p "$cls/link-subs" &&
  "$native" class submit "$cls/link-class.json" --save "$out/class-link-save.json" --student browser --out "$cls/link-subs/browser.json" &&
  "$native" class report "$cls/link-class.json" "$cls/link-subs" >"$cls/link-report.txt"; then
  cat "$cls/link-report.txt"
  grep -q "1 ranked, 0 rejected" "$cls/link-report.txt" || { echo "FAIL: the class link's submission was not ranked"; status=1; }
else
  echo "FAIL: the class link test"
  status=1
fi

echo "== browser: layout at 1024x640, 1280x800, 1920x1080 (text fit, nothing under the page's buttons)"
node tests/web/layout_test.mjs "$url" "$out" tests/ui/fixtures/scenarios/ui-test-layout.json tests/ui/text_fit_known.txt || status=1

echo "== browser: freeze test (no frame gap over ${TYCOON_MAX_FRAME_GAP_MS:-250} ms at 16x with the advisor)"
node tests/web/freeze_test.mjs "$url" "$out" || status=1

echo "== determinism: native vs browser ($scenario, seed $seed, $commands)"
"$native" run "$scenario" --seed "$seed" --commands "$commands" --advisor on --json >"$out/summary.native.json" || status=1
node tests/web/determinism.mjs "$url" "$scenario" "$seed" "$commands" "$out/summary.browser.json" --advisor || status=1
python3 tests/web/compare_summaries.py "$out/summary.native.json" "$out/summary.browser.json" || status=1

echo "== save and load: the browser's game saved and loaded at three seeded hours ends like the uninterrupted one"
"$native" run "$scenario" --seed "$seed" --commands "$commands" --advisor on --save "$out/final.native.save" >/dev/null || status=1
# Byte for byte, less the "written_by" object (the version and commit of the program that wrote the save:
# in a working tree the web and the native build may have been made at different commits).
same_save() {
  python3 - "$1" "$2" <<'PY'
import re, sys
def body(path):
    return re.sub(r'^ "written_by": \{.*?^ \},?\n', "", open(path).read(), count=1, flags=re.S | re.M)
sys.exit(0 if body(sys.argv[1]) == body(sys.argv[2]) else 1)
PY
}
if node tests/web/save_load_test.mjs "$url" "$scenario" "$seed" "$commands" "$out"; then
  for f in straight saved; do
    if same_save "$out/final.native.save" "$out/final.$f.save"; then
      echo "final save, browser ($f) = native: $(wc -c <"$out/final.native.save") bytes identical (the build's version and commit aside)"
    else
      echo "FAIL: the browser's final save ($f) differs from the native one"
      status=1
    fi
  done
else
  status=1
fi

echo "== class server: three students from their links, the leaderboard, the flags, the deadline, the gradebook (class_server_test.mjs)"
srv_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -f "$out/class-server.sqlite"*
"$native" class serve --host 127.0.0.1 --port "$srv_port" --db "$out/class-server.sqlite" --web build-web >"$out/class-server.log" 2>&1 &
class_server=$!
trap 'kill "$server" "$class_server" 2>/dev/null || true' EXIT
token=""
for _ in $(seq 100); do
  token=$(awk '/instructor token:/ {print $3}' "$out/class-server.log")
  [ -n "$token" ] && break
  sleep 0.1
done
if [ -z "$token" ] || ! node tests/web/class_server_test.mjs "http://127.0.0.1:$srv_port" "$out" "$token"; then
  echo "FAIL: the class server test (server log: $out/class-server.log)"
  status=1
fi
kill "$class_server" 2>/dev/null || true

echo "== sizes"
ls -l build-web/index.html build-web/index.js build-web/index.wasm build-web/index.data | awk '{s+=$5; print $5, $9} END {print s, "total"}'
if [ "$status" = 0 ]; then echo "== web tests passed"; else echo "== web tests FAILED"; fi
exit "$status"
