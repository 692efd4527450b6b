// tycoon_web: the game in the browser. A GLFW window (Emscripten's built-in GLFW on a WebGL2
// canvas) with Dear ImGui's GLFW and OpenGL3 backends around the same platform-free ui::App as
// the desktop game. The simulation runs inside frames (no threads in the page): at most one game
// hour per frame, so the worst frame is bounded by the slowest game hour.
//
// The page (web/shell.html) sizes the canvas to the window in CSS pixels; each frame this sizes
// the drawing buffer to CSS size × devicePixelRatio, renders ImGui in CSS units with a font
// atlas rasterized at device resolution, and maps the cursor back to CSS pixels.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <system_error>

#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include "sim/advisor/advisor.h"
#include "ui/theme.h"
#include "web/web_shell.h"

namespace tycoon::web {

WebShell& shell() {
  static WebShell s;
  return s;
}

namespace {

constexpr float kBaseFontPx = 15.0f;
constexpr long long kStorageSyncEveryFrames = 30;

// Rasterizes the fonts for `pixel_ratio` and draws them at CSS size.
void load_fonts(double pixel_ratio) {
  const std::string font = std::filesystem::exists(kFontFile) ? kFontFile.string() : std::string();
  ui::theme::load_fonts(font.empty() ? nullptr : font.c_str(), nullptr,
                        kBaseFontPx * static_cast<float>(pixel_ratio));
  ImGui::GetIO().FontGlobalScale = static_cast<float>(1.0 / pixel_ratio);
}

// Follows the canvas' CSS size and the device pixel ratio; returns true when either changed.
bool follow_canvas(WebShell& sh) {
  double w = 0, h = 0;
  emscripten_get_element_css_size("#canvas", &w, &h);
  const double ratio = std::clamp(emscripten_get_device_pixel_ratio(), 0.5, 4.0);
  if (w < 1 || h < 1) return false;
  const bool ratio_changed = std::abs(ratio - sh.pixel_ratio) > 1e-6;
  const bool changed = ratio_changed || w != sh.css_width || h != sh.css_height;
  if (!changed) return false;
  sh.css_width = w;
  sh.css_height = h;
  sh.pixel_ratio = ratio;
  // Not glfwSetWindowSize: Emscripten's GLFW turns a size equal to the screen into fullscreen.
  // Setting the size reallocates the drawing buffer even when it is unchanged: only on a change.
  const int want_w = static_cast<int>(std::lround(w * ratio)), want_h = static_cast<int>(std::lround(h * ratio));
  int have_w = 0, have_h = 0;
  emscripten_get_canvas_element_size("#canvas", &have_w, &have_h);
  if (have_w != want_w || have_h != want_h) emscripten_set_canvas_element_size("#canvas", want_w, want_h);
  if (ratio_changed && sh.frame_index > 0) {
    load_fonts(ratio);
    sh.renderer.upload_font_atlas();
  }
  return true;
}

// Emscripten's GLFW passes the browser's wheel deltas as they are: in pixels (about 100 a notch in
// Chromium, 3 lines in Firefox) and with the DOM's sign (positive = down), where GLFW and ImGui
// expect notches with positive = up. Without this a notch down scrolled dozens of lines up.
void on_scroll(GLFWwindow* window, double dx, double dy) {
  auto notches = [](double d) { return -(std::abs(d) < 10 ? d / 3.0 : d / 100.0); };
  ImGui_ImplGlfw_ScrollCallback(window, notches(dx), notches(dy));
}

void mark_ready() {
  EM_ASM({
    window.tycoonReady = true;
    window.tycoonReadyAt = performance.now();
    if (typeof Module.onTycoonReady === 'function') Module.onTycoonReady();
  });
}

void frame() {
  auto& sh = shell();
  const double t0 = emscripten_get_now();
  const double interval = sh.last_frame_at_ms > 0 ? t0 - sh.last_frame_at_ms : 0;
  const double dt_s = sh.frame_index == 0 ? 1.0 / 60 : std::min(interval / 1e3, 0.25);
  sh.last_frame_at_ms = t0;

  follow_canvas(sh);
  ImGui_ImplGlfw_NewFrame();
  // The GLFW backend reports canvas pixels; ImGui works in CSS pixels.
  ImGuiIO& io = ImGui::GetIO();
  const float ratio = static_cast<float>(sh.pixel_ratio);
  io.DisplaySize = ImVec2(static_cast<float>(sh.css_width), static_cast<float>(sh.css_height));
  io.DisplayFramebufferScale = ImVec2(ratio, ratio);
  if (io.MousePos.x > -FLT_MAX / 2) io.MousePos = ImVec2(io.MousePos.x / ratio, io.MousePos.y / ratio);

  ImGui::NewFrame();
  try {
    sh.app->frame(dt_s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tycoon_web: frame failed: %s\n", e.what());
  }
  ImGui::Render();
  const int fb_width = static_cast<int>(std::lround(sh.css_width * ratio));
  const int fb_height = static_cast<int>(std::lround(sh.css_height * ratio));
  glViewport(0, 0, fb_width, fb_height);
  glClearColor(0.067f, 0.078f, 0.11f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  sh.renderer.render(*ImGui::GetDrawData(), fb_width, fb_height);

  if (sh.frame_index % kStorageSyncEveryFrames == 0 && !sh.storage->sync()) {
    std::fprintf(stderr, "tycoon_web: %s\n", sh.storage->last_error().c_str());
  }
  sh.frames.add(emscripten_get_now() - t0, interval);
  if (sh.frame_index == 0) {
    sh.first_frame_at_ms = emscripten_get_now();
    mark_ready();
  }
  ++sh.frame_index;
}

}  // namespace

}  // namespace tycoon::web

int main() {
  using namespace tycoon::web;
  auto& sh = shell();
  sh.main_at_ms = emscripten_get_now();
  // Module.newUtf8(text): a malloc'd UTF-8 copy for EM_ASM_INT to return (storage.cpp).
  EM_ASM({
    Module.newUtf8 = function(s) {
      var n = lengthBytesUTF8(s) + 1;
      var p = _malloc(n);
      stringToUTF8(s, p, n);
      return p;
    };
  });

  if (!glfwInit()) {
    std::fprintf(stderr, "tycoon_web: glfwInit failed\n");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  // 2D only: no depth, stencil, alpha or multisampling (each costs SwiftShader time per frame).
  // The page created the context already with these attributes (web/shell.html).
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  glfwWindowHint(GLFW_SAMPLES, 0);
  // The window at the canvas' drawing-buffer size (which the page already set), so that neither
  // GLFW nor follow_canvas resizes it again.
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const double ratio = std::clamp(emscripten_get_device_pixel_ratio(), 0.5, 4.0);
  const bool sized = css_w >= 1 && css_h >= 1;
  sh.window = glfwCreateWindow(sized ? static_cast<int>(std::lround(css_w * ratio)) : 1280,
                               sized ? static_cast<int>(std::lround(css_h * ratio)) : 800, "Inference Tycoon", nullptr,
                               nullptr);
  if (!sh.window) {
    std::fprintf(stderr, "tycoon_web: no WebGL2 context\n");
    EM_ASM({ if (Module.setStatus) Module.setStatus('This browser cannot create a WebGL2 context.'); });
    return 1;
  }
  glfwMakeContextCurrent(sh.window);
  follow_canvas(sh);
  sh.window_at_ms = emscripten_get_now();

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout is fixed; nothing to remember
  tycoon::ui::theme::apply_style();
  load_fonts(sh.pixel_ratio);
  ImGui_ImplGlfw_InitForOpenGL(sh.window, true);
  glfwSetScrollCallback(sh.window, on_scroll);
  if (!sh.renderer.init()) {
    std::fprintf(stderr, "tycoon_web: %s\n", sh.renderer.error().c_str());
    EM_ASM({ if (Module.setStatus) Module.setStatus('WebGL2 refused the shaders: ' + UTF8ToString($0)); },
           sh.renderer.error().c_str());
    return 1;
  }
  sh.renderer.upload_font_atlas();
  sh.fonts_at_ms = emscripten_get_now();

  std::error_code ec;
  std::filesystem::create_directories(kSaveDir, ec);
  std::filesystem::create_directories(kImportDir, ec);
  sh.storage = std::make_unique<LocalStorageMirror>(kSaveDir, kProgressFile);
  const int restored = sh.storage->restore();
  if (restored > 0) std::printf("tycoon_web: %d file(s) restored from localStorage\n", restored);

  tycoon::ui::AppOptions options;
  options.data_root = kDataRoot;
  options.save_dir = kSaveDir;
  options.progress_file = kProgressFile;
  options.threaded = false;
  options.advisor = tycoon::advisor::kPlayedGamesHaveAdvisor;
  options.load_by_path = false;  // saves are listed from local storage; files come in through Import…
  options.status_right_inset = 200;  // CSS px for the page's Import… and Export save buttons (shell.html)
  try {
    sh.app.emplace(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tycoon_web: %s\n", e.what());
    EM_ASM({ if (Module.setStatus) Module.setStatus('The game data did not load: ' + UTF8ToString($0)); }, e.what());
    return 1;
  }
  sh.app_at_ms = emscripten_get_now();
  // A class link (?class=econ-101&scenario=…&seed=…&days=…&lock=…&history=…): start that exact
  // class. sim/classroom checks the parameters as it checks a class file; a bad link leaves the
  // start screen up with the reason (App::start_class_link). A student's link to a class server
  // (?code=…) brings the class's query from the server first (shell.html: Module.tycoonClassQuery).
  {
    char* query = reinterpret_cast<char*>(
        EM_ASM_INT({ return Module.newUtf8(Module.tycoonClassQuery || window.location.search || ""); }));
    const std::string q = query ? query : "";
    std::free(query);
    if (q.find("class=") != std::string::npos) {
      const bool ok = sh.app->start_class_link(q);
      std::printf("tycoon_web: class link %s\n", ok ? "started" : "refused");
    }
  }
  emscripten_set_main_loop(frame, 0, true);
  return 0;
}
