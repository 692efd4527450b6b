#!/usr/bin/env bash
# Format check: every C++ file of ours must be exactly what clang-format makes of it
# with the root .clang-format. Lists the files that drift and fails (exit 1); scripts/format_all.sh fixes them.
# Usage: scripts/check_format.sh [-v]   (-v also prints each drifting file's diff)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
verbose=0
for a in "$@"; do
  case "$a" in
    -v) verbose=1 ;;
    *) echo "check_format.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done
source scripts/format_files.sh
drift=()
for f in "${format_files[@]}"; do
  if ! "$clang_format" --style=file "$f" | cmp -s - "$f"; then
    drift+=("$f")
    [ "$verbose" = 1 ] && { "$clang_format" --style=file "$f" | diff -u "$f" - || true; }
  fi
done
if [ "${#drift[@]}" -gt 0 ]; then
  echo "check_format.sh: ${#drift[@]} of ${#format_files[@]} files drift from .clang-format ($version):" >&2
  printf '  %s\n' "${drift[@]}" >&2
  echo "fix with scripts/format_all.sh (or: $clang_format -i FILE)" >&2
  exit 1
fi
echo "check_format.sh: ${#format_files[@]} files match .clang-format ($version)"
