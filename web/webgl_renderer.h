// Draws ImGui's draw data on the page's WebGL2 context.
//
// Why not ImGui's OpenGL3 backend: it saves and restores the GL state around every frame with
// about twenty glGetIntegerv/glIsEnabled calls. In Chromium each is a synchronous round trip to
// the GPU process, which waits for the previous frame's rasterization (SwiftShader here): 80% of
// the main thread's time at top speed went to WebGL getParameter. This renderer owns the context
// (nothing else draws), sets the state it needs every frame, and never reads state back, so a
// frame's GL calls only queue work.
#pragma once

#include <GLES3/gl3.h>

#include <cstddef>
#include <string>

struct ImDrawData;

namespace tycoon::web {

class WebGlRenderer {
 public:
  // Compiles the shaders and creates the buffers. Returns false and keeps error() when the
  // context refuses (which is the only moment a status is read back).
  bool init();
  // (Re)uploads ImGui's font atlas as a one-channel texture (after fonts change).
  void upload_font_atlas();
  // Draws `data` into a `fb_width` × `fb_height` drawing buffer (device pixels).
  void render(const ImDrawData& data, int fb_width, int fb_height);
  const std::string& error() const { return error_; }

 private:
  void setup_state(const ImDrawData& data, int fb_width, int fb_height);

  GLuint program_ = 0;
  GLint projection_at_ = -1;
  GLint texture_at_ = -1;
  GLuint vertex_array_ = 0;
  GLuint vertex_buffer_ = 0;
  GLuint index_buffer_ = 0;
  GLuint font_texture_ = 0;
  std::size_t vertex_buffer_bytes_ = 0;
  std::size_t index_buffer_bytes_ = 0;
  std::string error_;
};

}  // namespace tycoon::web
