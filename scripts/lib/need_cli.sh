# Sourced by the check scripts that run the CLI: `need_cli "${1:-}" PACKAGE...` installs the Debian
# packages the check needs (scripts/setup.sh --with) and, when no CLI was given and build/tycoon is
# missing, builds it; then sets `tycoon` to the CLI's absolute path (the one given, else build/'s).
need_cli() {
  local given=$1 with=()
  shift
  for p in "$@"; do with+=(--with "$p"); done
  if [ -z "$given" ] && [ ! -x "$root/build/tycoon" ]; then
    "$root/scripts/setup.sh" "${with[@]}" >&2
  else
    "$root/scripts/setup.sh" --no-build "${with[@]}" >&2
  fi
  tycoon=$(realpath "${given:-$root/build/tycoon}")
}
