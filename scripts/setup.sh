#!/usr/bin/env bash
# Installs what the project needs on Debian 12 (as root) and configures + builds the native tree.
# Idempotent: packages already present are not reinstalled; an existing build is reused.
# Usage: scripts/setup.sh [--no-build] [--web]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

native_pkgs=(cmake g++ pkg-config make libsfml-dev libimgui-dev libeigen3-dev nlohmann-json3-dev
  libboost-dev libboost-random-dev doctest-dev libglfw3-dev libcli11-dev libfmt-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format xvfb xauth)
web_pkgs=(emscripten chromium imagemagick nodejs)

build=1; web=0
for a in "$@"; do
  case "$a" in
    --no-build) build=0 ;;
    --web) web=1 ;;
    *) echo "setup.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done

want=("${native_pkgs[@]}")
[ "$web" = 1 ] && want+=("${web_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" != 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$build" = 1 ]; then
  if [ ! -f build/CMakeCache.txt ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build build -j"$(nproc)"
fi
