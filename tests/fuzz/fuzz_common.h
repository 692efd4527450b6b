// Shared by the libFuzzer targets (one per input kind, tests/fuzz/fuzz_<kind>.cpp; scripts/fuzz.sh
// builds and runs them). The rule each target checks: any bytes give a value or the input error
// that names the file and the reason (data::LoadError, data::UnknownIdError, game::SaveError,
// std::invalid_argument) — never a crash, a hang, undefined behaviour or any other exception.
// Anything else escapes LLVMFuzzerTestOneInput, and libFuzzer reports it as a crash.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"

namespace tycoon::fuzz {

// The repository's catalog, loaded once per process.
inline const data::Catalog& catalog() {
  static const data::Catalog c = data::load_catalog(TYCOON_SOURCE_DIR);
  return c;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// For loaders that only read files: `bytes` written to `name` in a folder of this process's own
// (in /dev/shm when there is one: no disk writes per execution).
inline std::filesystem::path write_input(std::string_view name, std::string_view bytes) {
  static const std::filesystem::path dir = [] {
    std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    auto d = base / ("tycoon-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  auto path = dir / std::string(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace tycoon::fuzz
