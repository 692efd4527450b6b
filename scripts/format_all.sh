#!/usr/bin/env bash
# Reformats every C++ file of ours in place with the root .clang-format (the files scripts/check_format.sh
# checks). Prints how many files it changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/format_files.sh
changed=0
for f in "${format_files[@]}"; do
  if ! "$clang_format" --style=file "$f" | cmp -s - "$f"; then
    "$clang_format" --style=file -i "$f"
    changed=$((changed + 1))
  fi
done
echo "format_all.sh: reformatted $changed of ${#format_files[@]} files ($version)"
