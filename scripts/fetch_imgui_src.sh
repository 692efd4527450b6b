#!/usr/bin/env bash
# Fetches Dear ImGui 1.86's sources (the same tree as libimgui-dev) from Debian's source package
# into third_party_src/ (ignored by git) for the web build. Idempotent: does nothing when the tree
# is already there. Needs root for the deb-src entry and `apt-get update`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party_src"
tree="$dest/imgui-1.86+ds"
if [ -f "$tree/imgui.cpp" ] && [ -f "$tree/backends/imgui_impl_opengl3.cpp" ]; then
  echo "imgui sources present: $tree"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
src_list=/etc/apt/sources.list.d/debian-src.sources
if [ ! -f "$src_list" ]; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo tee "$src_list" >/dev/null
  else
    grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $sudo tee /etc/apt/sources.list.d/debian-src.list >/dev/null
  fi
  $sudo apt-get update -qq
fi
mkdir -p "$dest"
cd "$dest"
# dpkg-source may be missing on minimal systems; --download-only then unpack by hand.
if command -v dpkg-source >/dev/null; then
  apt-get source -qq imgui=1.86+ds-1
else
  apt-get source --download-only -qq imgui=1.86+ds-1
  mkdir -p "$tree"
  tar -xf imgui_1.86+ds.orig.tar.* -C "$tree" --strip-components=1
fi
if [ ! -f "$tree/imgui.cpp" ]; then
  found=$(find "$dest" -maxdepth 2 -name imgui.cpp | head -1)
  [ -n "$found" ] && [ "$(dirname "$found")" != "$tree" ] && ln -sfn "$(dirname "$found")" "$tree"
fi
test -f "$tree/imgui.cpp" || { echo "fetch_imgui_src: imgui.cpp not found under $dest" >&2; exit 1; }
echo "imgui sources: $tree"
