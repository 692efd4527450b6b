#include "ui/desktop/sfml_imgui.h"

#include <string>

#include <imgui.h>
#include <SFML/Window/Clipboard.hpp>

namespace tycoon::ui::desktop {

namespace {

// ImGui keeps the returned pointer until the next call.
const char* get_clipboard(void* user_data) {
  auto* buffer = static_cast<std::string*>(user_data);
  *buffer = sf::Clipboard::getString().toAnsiString();
  return buffer->c_str();
}

void set_clipboard(void* /*user_data*/, const char* text) {
  sf::Clipboard::setString(sf::String::fromUtf8(text, text + std::char_traits<char>::length(text)));
}

int mouse_index(sf::Mouse::Button b) {
  switch (b) {
    case sf::Mouse::Left:
      return 0;
    case sf::Mouse::Right:
      return 1;
    case sf::Mouse::Middle:
      return 2;
    case sf::Mouse::XButton1:
      return 3;
    case sf::Mouse::XButton2:
      return 4;
    default:
      return -1;
  }
}

}  // namespace

SfmlImGui::SfmlImGui(sf::Window& window) : window_(window) {
  ImGuiIO& io = ImGui::GetIO();
  io.BackendPlatformName = "tycoon_sfml";
  io.KeyMap[ImGuiKey_Tab] = sf::Keyboard::Tab;
  io.KeyMap[ImGuiKey_LeftArrow] = sf::Keyboard::Left;
  io.KeyMap[ImGuiKey_RightArrow] = sf::Keyboard::Right;
  io.KeyMap[ImGuiKey_UpArrow] = sf::Keyboard::Up;
  io.KeyMap[ImGuiKey_DownArrow] = sf::Keyboard::Down;
  io.KeyMap[ImGuiKey_PageUp] = sf::Keyboard::PageUp;
  io.KeyMap[ImGuiKey_PageDown] = sf::Keyboard::PageDown;
  io.KeyMap[ImGuiKey_Home] = sf::Keyboard::Home;
  io.KeyMap[ImGuiKey_End] = sf::Keyboard::End;
  io.KeyMap[ImGuiKey_Insert] = sf::Keyboard::Insert;
  io.KeyMap[ImGuiKey_Delete] = sf::Keyboard::Delete;
  io.KeyMap[ImGuiKey_Backspace] = sf::Keyboard::Backspace;
  io.KeyMap[ImGuiKey_Space] = sf::Keyboard::Space;
  io.KeyMap[ImGuiKey_Enter] = sf::Keyboard::Enter;
  io.KeyMap[ImGuiKey_Escape] = sf::Keyboard::Escape;
  io.KeyMap[ImGuiKey_KeyPadEnter] = sf::Keyboard::Enter;
  io.KeyMap[ImGuiKey_A] = sf::Keyboard::A;
  io.KeyMap[ImGuiKey_C] = sf::Keyboard::C;
  io.KeyMap[ImGuiKey_V] = sf::Keyboard::V;
  io.KeyMap[ImGuiKey_X] = sf::Keyboard::X;
  io.KeyMap[ImGuiKey_Y] = sf::Keyboard::Y;
  io.KeyMap[ImGuiKey_Z] = sf::Keyboard::Z;
  io.GetClipboardTextFn = get_clipboard;
  io.SetClipboardTextFn = set_clipboard;
  io.ClipboardUserData = &clipboard_;
}

void SfmlImGui::process(const sf::Event& e) {
  ImGuiIO& io = ImGui::GetIO();
  switch (e.type) {
    case sf::Event::MouseMoved:
      mouse_x_ = static_cast<float>(e.mouseMove.x);
      mouse_y_ = static_cast<float>(e.mouseMove.y);
      break;
    case sf::Event::MouseButtonPressed:
      mouse_x_ = static_cast<float>(e.mouseButton.x);
      mouse_y_ = static_cast<float>(e.mouseButton.y);
      if (int i = mouse_index(e.mouseButton.button); i >= 0) mouse_[static_cast<std::size_t>(i)].press();
      break;
    case sf::Event::MouseButtonReleased:
      if (int i = mouse_index(e.mouseButton.button); i >= 0) mouse_[static_cast<std::size_t>(i)].release();
      break;
    case sf::Event::MouseWheelScrolled:
      if (e.mouseWheelScroll.wheel == sf::Mouse::VerticalWheel) {
        wheel_ += e.mouseWheelScroll.delta;
      } else {
        wheel_h_ += e.mouseWheelScroll.delta;
      }
      break;
    case sf::Event::KeyPressed:
      if (e.key.code >= 0 && e.key.code < sf::Keyboard::KeyCount) keys_[static_cast<std::size_t>(e.key.code)].press();
      break;
    case sf::Event::KeyReleased:
      if (e.key.code >= 0 && e.key.code < sf::Keyboard::KeyCount) keys_[static_cast<std::size_t>(e.key.code)].release();
      break;
    case sf::Event::TextEntered:
      if (e.text.unicode >= 32 && e.text.unicode != 127 && e.text.unicode < 0x10000)
        io.AddInputCharacter(e.text.unicode);
      break;
    case sf::Event::LostFocus:
      focused_ = false;
      break;
    case sf::Event::GainedFocus:
      focused_ = true;
      break;
    case sf::Event::MouseLeft:
      mouse_x_ = mouse_y_ = -1e6f;
      break;
    default:
      break;
  }
}

void SfmlImGui::new_frame(float dt_s) {
  ImGuiIO& io = ImGui::GetIO();
  const auto size = window_.getSize();
  io.DisplaySize = ImVec2(static_cast<float>(size.x), static_cast<float>(size.y));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = dt_s > 0 ? dt_s : 1.0f / 60.0f;
  io.MousePos = ImVec2(mouse_x_, mouse_y_);
  for (std::size_t i = 0; i < mouse_.size(); ++i) io.MouseDown[i] = mouse_[i].down;
  io.MouseWheel = wheel_;
  io.MouseWheelH = wheel_h_;
  wheel_ = wheel_h_ = 0;
  for (std::size_t i = 0; i < keys_.size(); ++i) io.KeysDown[i] = keys_[i].down;
  auto down = [&](sf::Keyboard::Key k) { return keys_[static_cast<std::size_t>(k)].down; };
  io.KeyCtrl = down(sf::Keyboard::LControl) || down(sf::Keyboard::RControl);
  io.KeyShift = down(sf::Keyboard::LShift) || down(sf::Keyboard::RShift);
  io.KeyAlt = down(sf::Keyboard::LAlt) || down(sf::Keyboard::RAlt);
  io.KeySuper = down(sf::Keyboard::LSystem) || down(sf::Keyboard::RSystem);
  (void)focused_;
}

void SfmlImGui::end_frame() {
  for (auto& m : mouse_) m.end_frame();
  for (auto& k : keys_) k.end_frame();
}

}  // namespace tycoon::ui::desktop
