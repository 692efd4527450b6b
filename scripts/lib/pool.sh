# A small job pool for test runs: SLOTS jobs at a time, each job's output in its own log, printed
# when it ends (one job's lines never mix with another's). Sourced, not run.
#
#   run_pool SLOTS LOG_DIR < jobs      each line of jobs: NAME<TAB>COMMAND (a bash command line)
#
# Jobs start in the order given (put the longest first). Returns 0 when every job exited 0;
# otherwise prints the failed ones again at the end and returns 1.

run_pool() {
  local slots=$1 dir=$2
  mkdir -p "$dir"
  local -a names=() cmds=() failed=()
  local name cmd
  while IFS=$'\t' read -r name cmd; do
    [ -n "$name" ] || continue
    names+=("$name")
    cmds+=("$cmd")
  done
  local -A pid_of=() started=()
  local next=0 running=0 pid rc
  while ((next < ${#names[@]} || running > 0)); do
    while ((running < slots && next < ${#names[@]})); do
      name=${names[next]}
      bash -c "${cmds[next]}" >"$dir/$name.log" 2>&1 &
      pid_of[$!]=$name
      started[$name]=$SECONDS
      next=$((next + 1))
      running=$((running + 1))
    done
    rc=0
    wait -n -p pid "${!pid_of[@]}" || rc=$?
    name=${pid_of[$pid]}
    unset "pid_of[$pid]"
    running=$((running - 1))
    if [ "$rc" = 0 ]; then
      echo "-- $name: ok, $((SECONDS - started[$name])) s"
    else
      echo "-- $name: FAILED (exit $rc), $((SECONDS - started[$name])) s"
      failed+=("$name")
    fi
    cat "$dir/$name.log"
  done
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "FAILED: ${failed[*]} (logs: $dir/)"
    return 1
  fi
}

# Jobs for a doctest binary, one per test file (tests/test_*.cpp, the named ones first), for
# run_pool: NAME_PREFIX-FILE<TAB>BINARY -sf=*/FILE.cpp ARGS...
doctest_jobs() {  # doctest_jobs PREFIX BINARY "FIRST_FILES" [DOCTEST_ARGS...]
  local prefix=$1 bin=$2 first=$3
  shift 3
  local f
  local -a files=()
  for f in $first; do files+=("$f"); done
  for f in tests/test_*.cpp; do
    f=$(basename "$f" .cpp)
    [[ " $first " == *" $f "* ]] || files+=("$f")
  done
  local args=""
  [ $# -eq 0 ] || args=$(printf ' %q' "$@")
  for f in "${files[@]}"; do
    printf '%s-%s\t%q %q%s\n' "$prefix" "$f" "$bin" "-sf=*/$f.cpp" "$args"
  done
}
