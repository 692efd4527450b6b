// The browser shell's state, shared by the main loop (main.cpp) and the JavaScript bridge
// (bridge.cpp): the window, the platform-free app from ui/, frame timing and storage.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "ui/app.h"
#include "web/frame_stats.h"
#include "web/storage.h"
#include "web/webgl_renderer.h"

struct GLFWwindow;

namespace tycoon::web {

// In-memory file system layout (MEMFS; the catalogs are preloaded under /data).
inline const std::filesystem::path kDataRoot = "/data";
inline const std::filesystem::path kSaveDir = "/persist/saves";
inline const std::filesystem::path kProgressFile = "/persist/progress.json";
inline const std::filesystem::path kImportDir = "/imported";
inline const std::filesystem::path kFontFile = "/fonts/DejaVuSans.ttf";

struct WebShell {
  GLFWwindow* window = nullptr;
  std::optional<ui::App> app;
  FrameStats frames;
  std::size_t step_index_at_reset = 0;  // runner step_ms entries before the last stats reset
  std::unique_ptr<LocalStorageMirror> storage;
  WebGlRenderer renderer;
  double css_width = 0, css_height = 0;  // canvas size in CSS pixels (ImGui's units)
  double pixel_ratio = 1;                // device pixels per CSS pixel
  double last_frame_at_ms = 0;
  long long frame_index = 0;
  // Start-up milestones, ms since the page's navigation start (performance.now()).
  double main_at_ms = 0, window_at_ms = 0, fonts_at_ms = 0, app_at_ms = 0, first_frame_at_ms = 0;
};

// The one shell of the page.
WebShell& shell();

}  // namespace tycoon::web
