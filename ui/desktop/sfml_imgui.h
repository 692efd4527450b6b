// SFML 2.5 -> Dear ImGui 1.86 input glue (ImGui-SFML is not packaged here).
//
// ImGui 1.86 has no input queue: it samples io.MouseDown / io.KeysDown once per frame, so a press
// and release delivered between two frames (a fast click, xdotool, a test script) would be lost.
// Each button and key is latched: a press is shown to ImGui for at least one frame and a release
// that arrives in the same frame is applied on the next.
#pragma once

#include <array>
#include <string>

#include <SFML/Window.hpp>

struct ImGuiIO;

namespace tycoon::ui::desktop {

class SfmlImGui {
 public:
  // Sets up io.KeyMap, clipboard and backend flags for the current ImGui context.
  explicit SfmlImGui(sf::Window& window);

  // Feeds one SFML event (real or scripted).
  void process(const sf::Event& e);
  // Before ImGui::NewFrame(): display size, time step, mouse and keys as latched.
  void new_frame(float dt_s);
  // After the frame is rendered: applies releases deferred by the latch.
  void end_frame();

 private:
  struct Latch {
    bool down = false;
    bool pressed_this_frame = false;
    bool release_pending = false;
    void press() {
      down = true;
      pressed_this_frame = true;
      release_pending = false;
    }
    void release() {
      if (pressed_this_frame) {
        release_pending = true;
      } else {
        down = false;
      }
    }
    void end_frame() {
      pressed_this_frame = false;
      if (release_pending) down = false;
      release_pending = false;
    }
  };

  sf::Window& window_;
  std::array<Latch, 5> mouse_{};
  std::array<Latch, sf::Keyboard::KeyCount> keys_{};
  float mouse_x_ = -1e6f, mouse_y_ = -1e6f;
  float wheel_ = 0, wheel_h_ = 0;
  bool focused_ = true;
  std::string clipboard_;  // what ImGui last read from the clipboard
};

}  // namespace tycoon::ui::desktop
