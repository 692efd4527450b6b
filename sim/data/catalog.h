// The catalogs loaded together, with cross references checked (recipes name existing ids).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/data/accelerator.h"
#include "sim/data/engine.h"
#include "sim/data/kv_link.h"
#include "sim/data/model_card.h"
#include "sim/data/recipe.h"

namespace tycoon::data {

struct Catalog {
  std::filesystem::path root;
  std::vector<Accelerator> accelerators;
  std::vector<ModelCard> models;
  std::vector<Engine> engines;
  std::vector<Recipe> recipes;
  KvLinkCatalog kv_links;  // hardware_db/kv_links.json (empty when the file is absent)

  const Accelerator* find_accelerator(std::string_view id) const;
  const ModelCard* find_model(std::string_view id) const;
  const Engine* find_engine(std::string_view id) const;
  const Recipe* find_recipe(std::string_view model, std::string_view hardware) const;

  // Throwing lookups for user input: the error lists the known ids.
  const Accelerator& accelerator(std::string_view id) const;
  const ModelCard& model(std::string_view id) const;
  const Engine& engine(std::string_view id) const;
};

// Loads `<root>/hardware_db/{accelerators,engines}`, `<root>/models` and `<root>/models/recipes`.
// Throws LoadError on the first bad file.
Catalog load_catalog(const std::filesystem::path& root);

// The project root holding the catalogs: $TYCOON_DATA, else the directory baked in at build time.
std::filesystem::path default_data_root();

// An id given on the command line that is not in the catalog.
class UnknownIdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tycoon::data
