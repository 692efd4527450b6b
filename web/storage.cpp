#include "web/storage.h"

#include <emscripten.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace tycoon::web {

namespace {

// EM_ASM_INT returns a wasm32 pointer made by `Module.newUtf8` (installed by main.cpp; malloc'd, the caller frees it).
char* as_c_string(int p) { return reinterpret_cast<char*>(static_cast<std::intptr_t>(p)); }

std::string saves_prefix() { return std::string(kStoragePrefix) + "saves/"; }
std::string progress_key() { return std::string(kStoragePrefix) + "progress.json"; }

// localStorage keys under the prefix, joined by '\n' (keys never hold a newline here).
std::vector<std::string> storage_keys() {
  char* joined = as_c_string(EM_ASM_INT(
      {
        var prefix = UTF8ToString($0);
        var keys = [];
        try {
          for (var i = 0; i < localStorage.length; ++i) {
            var k = localStorage.key(i);
            if (k && k.startsWith(prefix) && k.indexOf('\n') < 0) keys.push(k);
          }
        } catch (e) {
          console.warn('localStorage unavailable: ' + e);
        }
        return Module.newUtf8(keys.join('\n'));
      },
      std::string(kStoragePrefix).c_str()));
  std::vector<std::string> out;
  std::stringstream ss(joined ? joined : "");
  free(joined);
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::string storage_get(const std::string& key) {
  char* v = as_c_string(EM_ASM_INT(
      {
        var v = null;
        try {
          v = localStorage.getItem(UTF8ToString($0));
        } catch (e) {
        }
        return v === null ? 0 : Module.newUtf8(v);
      },
      key.c_str()));
  std::string out = v ? v : "";
  free(v);
  return out;
}

// Returns "" on success, else the browser's error.
std::string storage_set(const std::string& key, const std::string& value) {
  char* err = as_c_string(EM_ASM_INT(
      {
        try {
          localStorage.setItem(UTF8ToString($0), UTF8ToString($1));
          return 0;
        } catch (e) {
          return Module.newUtf8(String(e));
        }
      },
      key.c_str(), value.c_str()));
  std::string out = err ? err : "";
  free(err);
  return out;
}

void storage_remove(const std::string& key) {
  EM_ASM(
      {
        try {
          localStorage.removeItem(UTF8ToString($0));
        } catch (e) {
        }
      },
      key.c_str());
}

bool write_text(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

bool safe_file_name(std::string_view name) {
  if (name.size() < 6 || name.size() > 96 || name.front() == '.') return false;
  if (name.substr(name.size() - 5) != ".json") return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

LocalStorageMirror::LocalStorageMirror(std::filesystem::path save_dir, std::filesystem::path progress_file)
    : save_dir_(std::move(save_dir)), progress_file_(std::move(progress_file)) {}

int LocalStorageMirror::restore() {
  int n = 0;
  const std::string saves = saves_prefix();
  for (const auto& key : storage_keys()) {
    std::filesystem::path target;
    if (key == progress_key()) {
      target = progress_file_;
    } else if (key.rfind(saves, 0) == 0 && safe_file_name(std::string_view(key).substr(saves.size()))) {
      target = save_dir_ / key.substr(saves.size());
    } else {
      continue;
    }
    std::string text = storage_get(key);
    if (write_text(target, text)) {
      mirrored_[key] = std::move(text);
      ++n;
    }
  }
  return n;
}

bool LocalStorageMirror::sync() {
  std::map<std::string, std::filesystem::path> present;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(save_dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && safe_file_name(name)) present[saves_prefix() + name] = e.path();
  }
  if (std::filesystem::is_regular_file(progress_file_, ec)) present[progress_key()] = progress_file_;
  bool ok = true;
  for (const auto& [key, path] : present) {
    std::string text = read_text(path);
    auto it = mirrored_.find(key);
    if (it != mirrored_.end() && it->second == text) continue;
    if (std::string err = storage_set(key, text); !err.empty()) {
      last_error_ = "could not keep " + path.filename().string() + " in the browser's storage: " + err;
      ok = false;
      continue;
    }
    mirrored_[key] = std::move(text);
  }
  for (auto it = mirrored_.begin(); it != mirrored_.end();) {
    if (present.count(it->first) == 0) {
      storage_remove(it->first);
      it = mirrored_.erase(it);
    } else {
      ++it;
    }
  }
  return ok;
}

}  // namespace tycoon::web
