#include "sim/data/catalog.h"

#include <algorithm>
#include <cstdlib>

#include "sim/data/json_reader.h"

#ifndef TYCOON_SOURCE_DIR
#define TYCOON_SOURCE_DIR "."
#endif

namespace tycoon::data {

namespace {

std::vector<std::filesystem::path> json_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) throw LoadError(dir.string(), "", "catalog folder is missing");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());  // directory order is not portable; ids order the catalogs
  return out;
}

template <typename T>
const T* find_by_id(const std::vector<T>& items, std::string_view id) {
  for (const auto& x : items) {
    if (x.id == id) return &x;
  }
  return nullptr;
}

template <typename T>
const T& require_id(const std::vector<T>& items, std::string_view id, std::string_view what) {
  if (const T* x = find_by_id(items, id)) return *x;
  std::string known;
  for (const auto& x : items) known += (known.empty() ? "" : ", ") + x.id;
  throw UnknownIdError("unknown " + std::string(what) + " '" + std::string(id) + "' (known: " + known + ")");
}

}  // namespace

const Accelerator* Catalog::find_accelerator(std::string_view id) const { return find_by_id(accelerators, id); }
const ModelCard* Catalog::find_model(std::string_view id) const { return find_by_id(models, id); }
const Engine* Catalog::find_engine(std::string_view id) const { return find_by_id(engines, id); }

const Recipe* Catalog::find_recipe(std::string_view model, std::string_view hardware) const {
  for (const auto& r : recipes) {
    if (r.model == model && r.hardware == hardware) return &r;
  }
  return nullptr;
}

const Accelerator& Catalog::accelerator(std::string_view id) const { return require_id(accelerators, id, "hardware"); }
const ModelCard& Catalog::model(std::string_view id) const { return require_id(models, id, "model"); }
const Engine& Catalog::engine(std::string_view id) const { return require_id(engines, id, "engine"); }

Catalog load_catalog(const std::filesystem::path& root) {
  Catalog c;
  c.root = root;
  for (const auto& p : json_files(root / "hardware_db" / "accelerators")) c.accelerators.push_back(load_accelerator(p));
  for (const auto& p : json_files(root / "hardware_db" / "engines")) c.engines.push_back(load_engine(p));
  if (const auto links = root / "hardware_db" / "kv_links.json"; std::filesystem::exists(links)) {
    c.kv_links = load_kv_links(links);
  }
  for (const auto& p : json_files(root / "models")) c.models.push_back(load_model_card(p));
  for (const auto& p : json_files(root / "models" / "recipes")) {
    auto r = load_recipe(p);
    auto check = [&](bool ok, const char* key, const std::string& id) {
      if (!ok) throw LoadError(r.file, std::string("/") + key, "unknown id '" + id + "'");
    };
    check(c.find_model(r.model) != nullptr, "model", r.model);
    check(c.find_accelerator(r.hardware) != nullptr, "hardware", r.hardware);
    check(c.find_engine(r.engine) != nullptr, "engine", r.engine);
    if (r.id != r.model + "__" + r.hardware) {
      throw LoadError(r.file, "", "file name must be <model>__<hardware>.json ('" + r.model + "__" + r.hardware + "')");
    }
    if (!c.find_engine(r.engine)->runs_on(c.find_accelerator(r.hardware)->vendor)) {
      throw LoadError(r.file, "/engine", "engine '" + r.engine + "' does not run on this vendor's chips");
    }
    c.recipes.push_back(std::move(r));
  }
  return c;
}

std::filesystem::path default_data_root() {
  if (const char* env = std::getenv("TYCOON_DATA"); env && *env) return env;
  return TYCOON_SOURCE_DIR;
}

}  // namespace tycoon::data
