// An ImGui context for UI unit tests: the game's font (or ImGui's own when it is not installed)
// and a built atlas, an 800x600 display at 60 frames a second, no renderer and no ini file.
#pragma once

#include <cstdint>
#include <filesystem>

#include <imgui.h>

namespace tycoon::ui_test {

inline constexpr const char* kTestFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

struct HeadlessImGui {
  HeadlessImGui() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(800, 600);
    io.DeltaTime = 1.0f / 60;
    if (std::filesystem::exists(kTestFont)) {
      io.Fonts->AddFontFromFileTTF(kTestFont, 15.0f);
    } else {
      io.Fonts->AddFontDefault();
    }
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1)));
  }
  ~HeadlessImGui() { ImGui::DestroyContext(); }
  HeadlessImGui(const HeadlessImGui&) = delete;
  HeadlessImGui& operator=(const HeadlessImGui&) = delete;
};

}  // namespace tycoon::ui_test
