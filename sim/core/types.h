// Small closed vocabularies shared by the catalogs, the performance model and the game.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tycoon {

// Numeric format of weights, activations or KV cache.
enum class Precision { kBf16, kFp8, kFp4, kInt4 };
inline constexpr std::array<std::string_view, 4> kPrecisionNames = {"bf16", "fp8", "fp4", "int4"};

// Bytes per stored value, scales included (MXFP4/NVFP4 carry one 8-bit scale per 32/16 values;
// FP8 block scaling one fp32 per 128x128 block, which is negligible).
constexpr double bytes_per_value(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return 2.0;
    case Precision::kFp8:
      return 1.0;
    case Precision::kFp4:
      return 0.5 + 1.0 / 32.0;
    case Precision::kInt4:
      return 0.5 + 2.0 / 32.0;  // group-32 with a bf16 scale
  }
  return 2.0;
}

enum class Vendor { kNvidia, kAmd, kGoogle };
inline constexpr std::array<std::string_view, 3> kVendorNames = {"nvidia", "amd", "google"};

enum class Contract { kOnDemand, kReserved, kSpot };
inline constexpr std::array<std::string_view, 3> kContractNames = {"on_demand", "reserved", "spot"};

template <typename E, std::size_t N>
constexpr std::string_view name_of(E value, const std::array<std::string_view, N>& names) {
  return names[static_cast<std::size_t>(value)];
}

inline std::string_view to_string(Precision p) { return name_of(p, kPrecisionNames); }
inline std::string_view to_string(Vendor v) { return name_of(v, kVendorNames); }
inline std::string_view to_string(Contract c) { return name_of(c, kContractNames); }

template <typename E, std::size_t N>
std::optional<E> parse_enum(std::string_view s, const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace tycoon
