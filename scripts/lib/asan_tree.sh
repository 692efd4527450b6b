# The one sanitizer build (sourced by scripts/sanitize.sh and scripts/fuzz.sh): clang, -O1, asserts
# on (CMake's Debug without NDEBUG), AddressSanitizer + UndefinedBehaviorSanitizer (no recovery) and
# libFuzzer's coverage (fuzzer-no-link) in build-asan/. The same tree gives the unit tests and the
# CLI run under the sanitizers (scripts/sanitize.sh) and the fuzz targets (scripts/fuzz.sh), so the
# code is compiled once for both. Unity batches (CMakeLists.txt) keep the cold build short.

asan_build=build-asan
asan_flags="-O1 -gline-tables-only -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
asan_fuzz_targets=(hardware_card model_card trace scenario save commands sweep_spec sweep_journal cli class_kit)

# asan_configure: configures build-asan/ once (the flags are fixed, so a reconfigure never rebuilds).
asan_configure() {
  [ -f "$asan_build/CMakeCache.txt" ] && return 0
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$asan_build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
    -DTYCOON_UNITY_BUILD=ON -DTYCOON_BUILD_FUZZ=ON -DTYCOON_BUILD_UI=OFF -DTYCOON_BUILD_BENCH=OFF \
    "${launcher[@]}" "-DCMAKE_CXX_FLAGS_DEBUG=$asan_flags" >/dev/null
}

# asan_make TARGET...: builds them (all jobs of the machine; TYCOON_SANITIZE_JOBS overrides).
asan_make() {
  asan_configure
  nice cmake --build "$asan_build" -j"${TYCOON_SANITIZE_JOBS:-$(nproc)}" --target "$@"
}
