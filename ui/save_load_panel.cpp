// Save and load: a popup with a file name for saving and the saves found for loading.
#include <cstdio>

#include "sim/game/save.h"
#include "ui/format.h"
#include "ui/library.h"
#include "ui/panels.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

namespace tycoon::ui {

void draw_save_load_popup(const GameView& game, ViewState& view, CommandQueue& out) {
  if (view.save_popup_requested) {
    view.save_popup_requested = false;
    view.save_path =
        (view.save_dir / game::save_file_name(game.scenario.id, game.state.hour, game.class_id, game.student)).string();
    view.save_files = list_saves(view.save_dir);
    ImGui::OpenPopup("Save or load");
  }
  ImGui::SetNextWindowSize(ImVec2(620, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Save or load", nullptr, ImGuiWindowFlags_NoResize)) return;
  theme::heading("Save this game");
  ImGui::SetNextItemWidth(-110);
  ImGui::InputText("##savepath", &view.save_path);
  tag(view.tags, "save.path");
  ImGui::SameLine();
  if (ImGui::Button("Save", ImVec2(100, 0))) {
    if (view.save_path.empty()) {
      view.message("Give the save a file name.", false, game.state.hour);
    } else {
      out.request(SaveGame{view.save_path});
      ImGui::CloseCurrentPopup();
    }
  }
  tag(view.tags, "save.button");
  ImGui::TextDisabled("Saves hold the scenario and the whole state; a failed save leaves the previous file intact.");

  ImGui::Spacing();
  theme::heading("Load a saved game");
  if (view.save_files.empty()) ImGui::TextDisabled("No saves in %s yet.", view.save_dir.string().c_str());
  ImGui::BeginChild("##saves", ImVec2(0, 160), false);
  for (std::size_t i = 0; i < view.save_files.size(); ++i) {
    const auto& f = view.save_files[i];
    if (ImGui::Selectable(f.filename().string().c_str())) {
      out.request(LoadGame{f});
      ImGui::CloseCurrentPopup();
    }
    tag(view.tags, "load." + f.filename().string());
    tag(view.tags, "load.#" + std::to_string(i));  // newest first
  }
  ImGui::EndChild();
  ImGui::Spacing();
  if (ImGui::Button("Close", ImVec2(100, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    ImGui::CloseCurrentPopup();
  }
  tag(view.tags, "save.close");
  ImGui::EndPopup();
}

}  // namespace tycoon::ui
