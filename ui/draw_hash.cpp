#include "ui/draw_hash.h"

#include <cstring>

#include <imgui.h>

namespace tycoon::ui {

namespace {

// Mixes 8 bytes at a time (a multiply-xorshift in the style of wyhash/murmur finalizers).
struct Hasher {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  void word(std::uint64_t w) {
    h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, c + i, 8);
      word(w);
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, c + i, n - i);
    word(tail ^ n);
  }
};

}  // namespace

std::uint64_t draw_data_hash(const ImDrawData& data) {
  Hasher h;
  h.bytes(&data.DisplaySize, sizeof data.DisplaySize);
  for (int i = 0; i < data.CmdListsCount; ++i) {
    const ImDrawList* list = data.CmdLists[i];
    h.bytes(list->VtxBuffer.Data, static_cast<std::size_t>(list->VtxBuffer.Size) * sizeof(ImDrawVert));
    h.bytes(list->IdxBuffer.Data, static_cast<std::size_t>(list->IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      h.bytes(&cmd.ClipRect, sizeof cmd.ClipRect);
      h.word(reinterpret_cast<std::uintptr_t>(cmd.TextureId));
      h.word((static_cast<std::uint64_t>(cmd.ElemCount) << 32) ^ cmd.IdxOffset ^
             (static_cast<std::uint64_t>(cmd.VtxOffset) << 16));
    }
  }
  return h.h;
}

}  // namespace tycoon::ui
