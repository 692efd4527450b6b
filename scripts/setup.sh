#!/usr/bin/env bash
# Installs what the project needs on Debian 12 (as root, or through sudo) and configures + builds
# the native tree build/. Idempotent and quiet: packages already present are not looked up again
# (no apt-get at all when nothing is missing), an existing build/ is reused.
# Usage: scripts/setup.sh [--no-build] [--web] [--with PACKAGE]...
#   --web           also what the browser version and its tests need (Emscripten, Chromium, ...)
#   --with PACKAGE  also this Debian package (scripts that need one more tool ask for it)
#   --no-build      install only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/phases.sh
trap phase_exit EXIT

native_pkgs=(cmake g++ pkg-config make libsfml-dev libimgui-dev libeigen3-dev nlohmann-json3-dev
  libboost-dev libboost-random-dev doctest-dev libglfw3-dev libcli11-dev libfmt-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format xvfb xauth git python3 libcpp-httplib-dev libsqlite3-dev)
web_pkgs=(emscripten chromium imagemagick nodejs curl)

build=1 web=0 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --web) web=1 ;;
    --with)
      [ $# -ge 2 ] || { echo "setup.sh: --with needs a package name" >&2; exit 2; }
      extra+=("$2")
      shift ;;
    *) echo "setup.sh: unknown option '$1' (options: --no-build, --web, --with PACKAGE)" >&2; exit 2 ;;
  esac
  shift
done

want=("${native_pkgs[@]}" "${extra[@]}")
[ "$web" = 1 ] && want+=("${web_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  phase "setup: installing ${missing[*]}"
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup.sh: installing needs root: run it as root (or install sudo)" >&2; exit 1; }
    sudo_cmd="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  phase_end
fi

if [ "$build" = 1 ]; then
  phase "build: native Release (build/)"
  if [ ! -f build/CMakeCache.txt ]; then
    # Unity batches: a cold build in about a third of the compiler time (CMakeLists.txt).
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTYCOON_UNITY_BUILD=ON >/dev/null
  fi
  cmake --build build -j"$(nproc)"
  phase_end
fi
