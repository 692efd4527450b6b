# Phases and background jobs with their wall times, for scripts/test and the scripts it runs.
# Sourced, not run. scripts/test sets TYCOON_PHASE_LOG (a file) and TYCOON_PHASE_T0 and exports
# them, so the scripts it starts record their phases in the same place; run alone, a script
# records nothing (/dev/null) and only prints its "== phase" lines.
#
#   phase NAME            prints "== NAME" and starts timing it (the previous phase ends there)
#   phase_end [STATUS]    ends the current phase (status ok unless told)
#   bg NAME COMMAND...    runs COMMAND in the background, its output in $TYCOON_JOB_LOGS/ (bg_file)
#   bg_wait NAME          waits for it, prints its output, returns its exit status
#   bg_kill               stops the background jobs still running (on failure)
#   phase_table           every phase and job: start, end and seconds since the run began
#
# Record lines, tab-separated: begin SECONDS NAME | end SECONDS NAME STATUS.

: "${TYCOON_PHASE_LOG:=/dev/null}"
: "${TYCOON_PHASE_T0:=$EPOCHREALTIME}"
TYCOON_JOB_LOGS=${TYCOON_JOB_LOGS:-build/test-logs}
tycoon_phase_current=""
declare -A tycoon_bg_pid=()

phase_now() { awk -v now="$EPOCHREALTIME" -v t0="$TYCOON_PHASE_T0" 'BEGIN { printf "%.1f", now - t0 }'; }

phase_end() {
  [ -n "$tycoon_phase_current" ] || return 0
  printf 'end\t%s\t%s\t%s\n' "$(phase_now)" "$tycoon_phase_current" "${1:-ok}" >>"$TYCOON_PHASE_LOG"
  tycoon_phase_current=""
}

phase() {
  phase_end
  tycoon_phase_current=$1
  printf 'begin\t%s\t%s\n' "$(phase_now)" "$1" >>"$TYCOON_PHASE_LOG"
  echo "== $1"
}

# For a script's EXIT trap: closes its last phase as ok or FAILED by the exit status.
phase_exit() {
  local rc=$?
  phase_end "$([ "$rc" = 0 ] && echo ok || echo FAILED)"
  return "$rc"
}

# The file name of a job's log: its name up to the first space or colon, after a leading
# "background: " (the sanitizer and web builds each log to a file of their own; both were
# "background", the web build's log overwriting the sanitizer build's).
bg_file() { local f=${1#background: }; f=${f%%[ :]*}; echo "$TYCOON_JOB_LOGS/${f//\//_}"; }

bg() {
  local name=$1 file
  shift
  file=$(bg_file "$name")
  mkdir -p "$TYCOON_JOB_LOGS"
  printf 'begin\t%s\t%s\n' "$(phase_now)" "$name" >>"$TYCOON_PHASE_LOG"
  (
    # Its own process group (job control), so that bg_kill can stop the whole job, a build's
    # compilers too; not its own session (setsid), which would make it its own scheduler autogroup
    # and take half the CPU from the tests in front however niced.
    set -m
    rc=0
    "$@" </dev/null >"$file.log" 2>&1 &
    echo $! >"$file.pid"
    wait $! || rc=$?
    printf 'end\t%s\t%s\t%s\n' "$(phase_now)" "$name" "$([ "$rc" = 0 ] && echo ok || echo FAILED)" >>"$TYCOON_PHASE_LOG"
    exit "$rc"
  ) &
  tycoon_bg_pid[$name]=$!
}

bg_wait() {
  local name=$1 rc=0
  wait "${tycoon_bg_pid[$name]}" || rc=$?
  unset "tycoon_bg_pid[$name]"
  echo "== $name: its output (it ran in the background)"
  cat "$(bg_file "$name").log"
  return "$rc"
}

# Stops the background jobs still running (after a failure): each job's process group.
bg_kill() {
  local name pid
  for name in "${!tycoon_bg_pid[@]}"; do
    pid=$(cat "$(bg_file "$name").pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -TERM -- "-$pid" 2>/dev/null || true
  done
}

phase_table() {
  echo "== phase times (wall-clock seconds since the start; background jobs overlap the phases)"
  awk -F'\t' -v total="$(phase_now)" '
    $1 == "begin" { n++; name[n] = length($3) > 56 ? substr($3, 1, 53) "..." : $3; full[n] = $3; start[n] = $2 }
    $1 == "end" { for (i = n; i >= 1; i--) if (full[i] == $3 && stop[i] == "") { stop[i] = $2; status[i] = $4; break } }
    END {
      printf "  %-56s %7s %7s %7s  %s\n", "phase", "start", "end", "seconds", "status"
      for (i = 1; i <= n; i++) {
        if (stop[i] == "") printf "  %-56s %7.0f %7s %7s  %s\n", name[i], start[i], "-", "-", "did not finish"
        else printf "  %-56s %7.0f %7.0f %7.0f  %s\n", name[i], start[i], stop[i], stop[i] - start[i], status[i]
      }
      printf "  %-56s %7s %7s %7.0f  (%.1f min)\n", "total", "", "", total, total / 60
    }' "$TYCOON_PHASE_LOG"
}
