#!/usr/bin/env bash
# The game under Xvfb with scripted input: start the tutorial, rent a GPU, try a deployment that
# does not fit, deploy, advance a day, open every panel and the advisor, save, load, play to the
# end; a second run of bad input (renting with no cash); every main screen at 1024x640, 1280x800
# and 1920x1080 with the text-fit check. Screenshots go to $2 for review; the
# state the game reached is checked from the JSON the binary writes on exit.
#   tests/ui/ui_test.sh build/tycoon_game build/ui-test
set -u
game="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$out"
mkdir -p "$out"
fail=0

run() {  # name script
  local name=$1 script=$2
  timeout 280 xvfb-run -a -s '-screen 0 1280x800x24' "$game" --save-dir "$out/saves" \
    --scenario-dir "$here/fixtures/scenarios" --script "$here/$script" --screenshot-dir "$out" \
    --dump-state "$out/$name.json" --frame-stats --no-auto-pause >"$out/$name.log" 2>&1
  local rc=$?
  sed "s/^/[$name] /" "$out/$name.log"
  if [ "$rc" != 0 ]; then
    echo "FAIL $name: exit $rc"
    fail=1
  fi
}

run tutorial tutorial.script
run bad_input bad_input.script
run split split.script
# The classroom screens: class setup shows the class's link; the Class report screen
# loads a report's JSON and finds a student's row. From the source root: the script types the
# fixture's path relative to it.
pushd "$here/../.." >/dev/null
run class class.script
popd >/dev/null

# Layout at three window sizes: every main screen (start, dashboard, market, deploy
# form, deployments, pricing, advisor, debrief) is screenshotted under $out/layout-WxH/, and each
# screenshot frame is checked for labels cut, squeezed, overlapping or wrapped inside a number
# (--check-text-fit, ui/text_fit.h): the binary exits 5 on any problem not listed in
# text_fit_known.txt. A few frames per screen and a two-day game keep it short.
layout() {  # WxH
  local size=$1 w=${1%x*} h=${1#*x}
  local name="layout-$size"
  mkdir -p "$out/$name"
  timeout 280 xvfb-run -a -s "-screen 0 ${size}x24" "$game" --width "$w" --height "$h" --save-dir "$out/saves-$name" \
    --scenario-dir "$here/fixtures/scenarios" --script "$here/layout.script" --screenshot-dir "$out/$name" \
    --dump-state "$out/$name.json" --no-auto-pause --check-text-fit --text-fit-known "$here/text_fit_known.txt" \
    >"$out/$name.log" 2>&1
  local rc=$?
  grep -v "known (" "$out/$name.log" | sed "s/^/[$name] /"
  if [ "$rc" != 0 ]; then
    echo "FAIL $name: exit $rc (5: labels do not fit; see the text-fit lines above)"
    fail=1
  fi
  for shot in start dashboard-empty market deploy-form deploy-form-end deployed deployed-list dashboard pricing advisor debrief; do
    if [ ! -s "$out/$name/$shot.png" ]; then
      echo "FAIL $name: missing screenshot $shot.png"
      fail=1
    fi
  done
}
for size in 1024x640 1280x800 1920x1080; do layout "$size"; done

# A script's screenshot waits while the layout settles (a new table sizing its columns), at most 8
# frames a shot. A run whose shots wait much longer than that in total holds every picture: the
# settling test would be stuck on something that never settles.
for f in "$out"/*.json; do
  held=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("frame_stats", {}).get("screenshot_frames_held", 0))' "$f")
  if [ "$held" -gt 8 ]; then
    echo "FAIL $(basename "$f" .json): screenshots waited $held frames in all for the layout to settle (at most 8)"
    fail=1
  fi
done

# The freeze test (no frame held, whatever the simulation does): campaign level 1 at 16x with the
# advisor, threaded and as the browser runs it (--no-threads: forks, a tape and simulations sliced
# within a frame budget); the binary exits 4 when any interval between frames exceeds the limit.
freeze() {  # name extra-flags...
  local name=$1
  shift
  timeout 280 xvfb-run -a -s '-screen 0 1280x800x24' "$game" --save-dir "$out/saves-$name" \
    --scenario campaign-01-thin-margin --speed 16x --frames "${TYCOON_FREEZE_FRAMES:-900}" --frame-stats \
    --max-frame-gap-ms "${TYCOON_MAX_FRAME_GAP_MS:-250}" --dump-state "$out/$name.json" --no-auto-pause "$@" >"$out/$name.log" 2>&1
  local rc=$?
  sed "s/^/[$name] /" "$out/$name.log"
  if [ "$rc" != 0 ]; then
    echo "FAIL $name: exit $rc"
    fail=1
  fi
}
freeze freeze_threaded
freeze freeze_no_threads --no-threads
for check in tutorial bad_input split; do
  if [ -f "$out/$check.json" ]; then
    cmake -DSTATE="$out/$check.json" -DCHECK=$check -P "$here/check_state.cmake" || fail=1
  else
    echo "FAIL $check: no state dump"
    fail=1
  fi
done
for shot in 01-start-screen 02-tutorial-started 03-rented 04-does-not-fit 05-deployed 06-dashboard-day1 07-traffic \
  08-profiler 09-pareto 10-pricing 11-advisor 12-save-dialog 13-loaded 14-debrief 15-start-with-save 20-no-cash \
  21-does-not-fit 22-no-service 23-menu-confirm 24-left-with-autosave 30-split-form 31-split-deployed 32-split-list; do
  if [ ! -s "$out/$shot.png" ]; then
    echo "FAIL missing screenshot $shot.png"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "UI test passed; screenshots in $out"
exit $fail
