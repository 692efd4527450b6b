#include "web/webgl_renderer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <imgui.h>

namespace tycoon::web {

namespace {

constexpr const char* kVertexShader = R"(#version 300 es
uniform mat4 projection;
layout (location = 0) in vec2 position;
layout (location = 1) in vec2 uv;
layout (location = 2) in vec4 color;
out vec2 frag_uv;
out vec4 frag_color;
void main() {
  frag_uv = uv;
  frag_color = color;
  gl_Position = projection * vec4(position, 0.0, 1.0);
})";

// The only texture is the font atlas, one channel of coverage (its white pixel is 255).
constexpr const char* kFragmentShader = R"(#version 300 es
precision mediump float;
uniform sampler2D atlas;
in vec2 frag_uv;
in vec4 frag_color;
out vec4 out_color;
void main() {
  out_color = vec4(frag_color.rgb, frag_color.a * texture(atlas, frag_uv).r);
})";

GLuint compile(GLenum kind, const char* source, std::string& error) {
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    error = std::string(kind == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader: " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

// Grows `buffer` (bound to `target`) to at least `bytes`, doubling, and orphans the old storage.
void reserve(GLenum target, std::size_t bytes, std::size_t& capacity) {
  if (bytes <= capacity) return;
  capacity = std::max<std::size_t>(bytes, capacity * 2);
  glBufferData(target, static_cast<GLsizeiptr>(capacity), nullptr, GL_STREAM_DRAW);
}

}  // namespace

bool WebGlRenderer::init() {
  GLuint vs = compile(GL_VERTEX_SHADER, kVertexShader, error_);
  if (!vs) return false;
  GLuint fs = compile(GL_FRAGMENT_SHADER, kFragmentShader, error_);
  if (!fs) {
    glDeleteShader(vs);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    error_ = std::string("shader program: ") + log;
    return false;
  }
  projection_at_ = glGetUniformLocation(program_, "projection");
  texture_at_ = glGetUniformLocation(program_, "atlas");

  glGenVertexArrays(1, &vertex_array_);
  glGenBuffers(1, &vertex_buffer_);
  glGenBuffers(1, &index_buffer_);
  glBindVertexArray(vertex_array_);
  glBindBuffer(GL_ARRAY_BUFFER, vertex_buffer_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, index_buffer_);  // part of the vertex array's state
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glEnableVertexAttribArray(2);
  glBindVertexArray(0);

  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "tycoon_webgl2";
  return true;
}

void WebGlRenderer::upload_font_atlas() {
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsAlpha8(&pixels, &width, &height);
  if (!font_texture_) glGenTextures(1, &font_texture_);
  glBindTexture(GL_TEXTURE_2D, font_texture_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, width, height, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(font_texture_)));
  io.Fonts->ClearTexData();  // the pixels live in the texture now
}

void WebGlRenderer::setup_state(const ImDrawData& data, int fb_width, int fb_height) {
  glViewport(0, 0, fb_width, fb_height);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  // ImGui's coordinates (DisplayPos at the top left) to clip space.
  const float l = data.DisplayPos.x, r = data.DisplayPos.x + data.DisplaySize.x;
  const float t = data.DisplayPos.y, b = data.DisplayPos.y + data.DisplaySize.y;
  const float projection[16] = {2.0f / (r - l),    0, 0, 0, 0, 2.0f / (t - b), 0, 0, 0, 0, -1, 0, (r + l) / (l - r),
                                (t + b) / (b - t), 0, 1};
  glUseProgram(program_);
  glUniformMatrix4fv(projection_at_, 1, GL_FALSE, projection);
  glUniform1i(texture_at_, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vertex_array_);
  glBindBuffer(GL_ARRAY_BUFFER, vertex_buffer_);
}

void WebGlRenderer::render(const ImDrawData& data, int fb_width, int fb_height) {
  if (fb_width <= 0 || fb_height <= 0 || !program_) return;
  setup_state(data, fb_width, fb_height);
  // One upload of every list's vertices and indices; each list then draws from its offsets.
  const std::size_t vertex_bytes = static_cast<std::size_t>(data.TotalVtxCount) * sizeof(ImDrawVert);
  const std::size_t index_bytes = static_cast<std::size_t>(data.TotalIdxCount) * sizeof(ImDrawIdx);
  reserve(GL_ARRAY_BUFFER, vertex_bytes, vertex_buffer_bytes_);
  reserve(GL_ELEMENT_ARRAY_BUFFER, index_bytes, index_buffer_bytes_);
  const GLenum index_type = sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
  const ImVec2 clip_off = data.DisplayPos;
  const ImVec2 clip_scale = data.FramebufferScale;
  std::size_t vertex_at = 0, index_at = 0;
  for (int n = 0; n < data.CmdListsCount; ++n) {
    const ImDrawList* list = data.CmdLists[n];
    const std::size_t vb = static_cast<std::size_t>(list->VtxBuffer.Size) * sizeof(ImDrawVert);
    const std::size_t ib = static_cast<std::size_t>(list->IdxBuffer.Size) * sizeof(ImDrawIdx);
    glBufferSubData(GL_ARRAY_BUFFER, static_cast<GLintptr>(vertex_at), static_cast<GLsizeiptr>(vb),
                    list->VtxBuffer.Data);
    glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLintptr>(index_at), static_cast<GLsizeiptr>(ib),
                    list->IdxBuffer.Data);
    // WebGL2 has no base-vertex draw: point the attributes at this list's vertices instead.
    const auto at = [&](std::size_t field) { return reinterpret_cast<const void*>(vertex_at + field); };
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), at(offsetof(ImDrawVert, pos)));
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), at(offsetof(ImDrawVert, uv)));
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ImDrawVert), at(offsetof(ImDrawVert, col)));
    for (int c = 0; c < list->CmdBuffer.Size; ++c) {
      const ImDrawCmd& cmd = list->CmdBuffer[c];
      if (cmd.UserCallback) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState) {
          setup_state(data, fb_width, fb_height);
        } else {
          cmd.UserCallback(list, &cmd);
        }
        continue;
      }
      const float x0 = (cmd.ClipRect.x - clip_off.x) * clip_scale.x;
      const float y0 = (cmd.ClipRect.y - clip_off.y) * clip_scale.y;
      const float x1 = (cmd.ClipRect.z - clip_off.x) * clip_scale.x;
      const float y1 = (cmd.ClipRect.w - clip_off.y) * clip_scale.y;
      if (x1 <= x0 || y1 <= y0) continue;
      glScissor(static_cast<GLint>(x0), static_cast<GLint>(static_cast<float>(fb_height) - y1),
                static_cast<GLsizei>(x1 - x0), static_cast<GLsizei>(y1 - y0));
      glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<std::intptr_t>(cmd.GetTexID())));
      glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(cmd.ElemCount), index_type,
                     reinterpret_cast<const void*>(index_at + cmd.IdxOffset * sizeof(ImDrawIdx)));
    }
    vertex_at += vb;
    index_at += ib;
  }
  glBindVertexArray(0);
  glDisable(GL_SCISSOR_TEST);
}

}  // namespace tycoon::web
