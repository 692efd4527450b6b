#!/usr/bin/env bash
# The desktop game as a student of a class server: `tycoon class serve` on a free port, a one-day
# class with a roster of two made over the API, then tycoon_game under Xvfb started from Ada's
# link (--class-link http://127.0.0.1:PORT/?code=CODE) with tests/ui/class_server.script: Hand in
# pressed at hour 6, the day played out (the end's hand-in goes by itself). The server's
# leaderboard must then hold Ada's two attempts, the first unfinished at hour 6, and Ben not
# handed in; a link with a code the server does not know stops the game with the reason (exit 1).
#   tests/ui/class_server_test.sh build/tycoon build/tycoon_game build/ui-class-server
set -u
tycoon="$1"
game="$2"
out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$out"
mkdir -p "$out"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$tycoon" class serve --host 127.0.0.1 --port "$port" --db "$out/class.sqlite" >"$out/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
token=""
for _ in $(seq 100); do
  token=$(awk '/instructor token:/ {print $3}' "$out/serve.log")
  [ -n "$token" ] && break
  sleep 0.1
done
[ -n "$token" ] || { echo "FAIL: the server did not start"; cat "$out/serve.log"; exit 1; }
S="http://127.0.0.1:$port"
auth="Authorization: Bearer $token"
curl -sf -H "$auth" -H 'Content-Type: application/json' \
  -d '{"class_id": "desk-101", "scenario": "prices-only", "seed": 2026, "days": 1}' "$S/api/classes" >/dev/null ||
  { echo "FAIL: class not created"; exit 1; }
curl -sf -H "$auth" -H 'Content-Type: text/plain' --data-binary $'Ada\nBen\n' "$S/api/classes/desk-101/roster" \
  >"$out/roster.json" || { echo "FAIL: roster not added"; exit 1; }
code=$(python3 -c 'import json,sys; print(next(s["code"] for s in json.load(open(sys.argv[1]))["students"] if s["student"] == "Ada"))' "$out/roster.json")

timeout 280 xvfb-run -a -s '-screen 0 1280x800x24' "$game" --save-dir "$out/saves" --class-link "$S/?code=$code" \
  --script "$here/class_server.script" --screenshot-dir "$out" --speed paused --no-auto-pause \
  --dump-state "$out/game.json" >"$out/game.log" 2>&1
rc=$?
sed 's/^/[game] /' "$out/game.log"
fail=0
[ "$rc" = 0 ] || { echo "FAIL: tycoon_game exited $rc"; fail=1; }
# The hand-in bar (sized anew every frame) must not hold the screenshots (ui::layout_settling).
held=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("frame_stats", {}).get("screenshot_frames_held", 0))' "$out/game.json" 2>/dev/null || echo missing)
[ "$held" != missing ] && [ "$held" -le 8 ] || { echo "FAIL: screenshots waited $held frames for the layout to settle (at most 8)"; fail=1; }
grep -q "Handed in (attempt 1, unfinished at hour 6 of " "$out/game.log" || { echo "FAIL: no unfinished hand-in at hour 6"; fail=1; }
grep -q "Handed in (attempt 2)" "$out/game.log" || { echo "FAIL: the end's hand-in did not go"; fail=1; }

curl -sf -H "$auth" "$S/api/classes/desk-101/leaderboard" >"$out/leaderboard.json" || { echo "FAIL: no leaderboard"; fail=1; }
python3 - "$out/leaderboard.json" <<'PY' || fail=1
import json, sys
b = json.load(open(sys.argv[1]))
rows = {s["student"]: s for s in b["standings"]}
ok = True
def check(cond, what):
    global ok
    print(("ok: " if cond else "FAIL: ") + what)
    ok = ok and cond
check(list(rows) == ["Ada"], "Ada alone is ranked: %s" % list(rows))
check(rows.get("Ada", {}).get("attempts") == 2, "Ada handed in twice")
check(rows.get("Ada", {}).get("counted", {}).get("finished") is True, "the finished game counts (best attempt)")
check([s["student"] for s in b["not_handed_in"]] == ["Ben"], "Ben has not handed in")
sys.exit(0 if ok else 1)
PY

# A code the server does not know: the game says why and stops before opening a class.
timeout 60 xvfb-run -a -s '-screen 0 1280x800x24' "$game" --save-dir "$out/saves" \
  --class-link "$S/?code=AAAA-BBBB-CCCC-DDDD" --frames 2 >"$out/bad.log" 2>&1
rc=$?
if [ "$rc" != 1 ] || ! grep -q "that is no student's code on this server" "$out/bad.log"; then
  echo "FAIL: an unknown code: exit $rc"; cat "$out/bad.log"; fail=1
fi
[ "$fail" = 0 ] && echo "class server desktop test passed"
exit "$fail"
