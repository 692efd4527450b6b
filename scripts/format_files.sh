# Sourced by scripts/check_format.sh and scripts/format_all.sh: the pinned clang-format and the files it owns.
# Sets $clang_format (the binary) and the array $format_files (our C++: every tracked .cpp/.h; third-party
# sources are not tracked, /third_party_src/ is ignored). web/main.cpp and web/storage.cpp are left out:
# their EM_ASM blocks are JavaScript, which clang-format breaks ('===' became '== =').
# The pin: .clang-format spells out clang-format 14's resolved options; another major version may still
# format differently (new options, fixed bugs), so it is refused. CLANG_FORMAT=path picks the binary.
format_major=14
find_clang_format() {
  clang_format=${CLANG_FORMAT:-}
  if [ -z "$clang_format" ]; then
    for c in clang-format-$format_major clang-format; do
      if command -v "$c" >/dev/null; then clang_format=$c; break; fi
    done
  fi
}
find_clang_format
# Not there: Debian's clang-format package is clang-format 14 (scripts/setup.sh installs it).
if [ -z "${CLANG_FORMAT:-}" ] && [ -z "$clang_format" ]; then
  "$(dirname "${BASH_SOURCE[0]}")/setup.sh" --no-build
  find_clang_format
fi
if [ -z "$clang_format" ] || ! command -v "$clang_format" >/dev/null; then
  echo "$(basename "$0"): clang-format${CLANG_FORMAT:+ ($CLANG_FORMAT)} not found${CLANG_FORMAT:+ (unset CLANG_FORMAT to use the clang-format 14 package)}" >&2
  exit 2
fi
version=$("$clang_format" --version 2>/dev/null | head -1 || true)
if ! [[ "$version" =~ clang-format\ version\ $format_major\. ]]; then
  echo "$(basename "$0"): $clang_format is '$version'; .clang-format is pinned to clang-format $format_major" >&2
  echo "  (Debian 12's clang-format package); set CLANG_FORMAT to a clang-format-$format_major binary" >&2
  exit 2
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t format_files < <(git ls-files -- '*.cpp' '*.h' ':!:third_party_src/*' ':!:web/main.cpp' ':!:web/storage.cpp')
else
  mapfile -t format_files < <(find sim server cli ui bench tests calibration web -name '*.cpp' -o -name '*.h' | grep -v -e '^web/main.cpp$' -e '^web/storage.cpp$' | sort)
fi
