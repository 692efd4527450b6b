// A fingerprint of a frame's draw data, so a shell can skip rasterizing and presenting a frame
// identical to the one on screen (software GL spends nearly all of a frame's time rasterizing).
#pragma once

#include <cstdint>

struct ImDrawData;

namespace tycoon::ui {

// 64-bit hash over every vertex, index and draw command (clip rectangle, texture, count).
std::uint64_t draw_data_hash(const ImDrawData& data);

}  // namespace tycoon::ui
