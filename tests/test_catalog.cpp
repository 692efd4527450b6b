// The bundled catalogs load, cover what the issue lists, and every kind of bad edit to a file is
// reported with the file, the JSON pointer and the reason.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "sim/data/catalog.h"
#include "sim/data/json_reader.h"

using namespace tycoon;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = TYCOON_SOURCE_DIR;

// A scratch copy of the catalogs in which one file can be edited.
struct ScratchCatalog {
  fs::path root;
  ScratchCatalog() {
    root = fs::temp_directory_path() / ("tycoon-catalog-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "hardware_db");
    fs::copy(kRoot / "hardware_db" / "accelerators", root / "hardware_db" / "accelerators",
             fs::copy_options::recursive);
    fs::copy(kRoot / "hardware_db" / "engines", root / "hardware_db" / "engines", fs::copy_options::recursive);
    fs::copy(kRoot / "models", root / "models", fs::copy_options::recursive);
  }
  ~ScratchCatalog() { fs::remove_all(root); }
  void edit(const fs::path& rel, const std::function<void(nlohmann::json&)>& f) const {
    auto j = data::parse_json_file(root / rel);
    f(j);
    std::ofstream(root / rel) << j.dump(2);
  }
  void write(const fs::path& rel, const std::string& text) const { std::ofstream(root / rel) << text; }
  std::string error() const {
    try {
      data::load_catalog(root);
    } catch (const data::LoadError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string file(const fs::path& rel) const { return (root / rel).string(); }
};

}  // namespace

TEST_CASE("the bundled catalogs load and cover the issue's lists") {
  auto c = data::load_catalog(kRoot);
  for (const char* id : {"h100", "h200", "b200", "b300", "gb200", "mi300x", "mi325x", "mi355x", "tpu-v6e", "tpu-v7"}) {
    INFO(id);
    CHECK(c.find_accelerator(id) != nullptr);
  }
  for (const char* id : {"gpt-oss-120b", "kimi-k3", "nemotron-3-ultra", "deepseek-v4-pro", "deepseek-v3.2",
                         "qwen3.5-397b", "qwen3-coder-480b", "kimi-k2.6", "glm-5.3", "minimax-m2.7", "llama-4-scout",
                         "gemma-4-31b", "gpt-oss-20b", "llama-3.1-8b", "llama-3.1-70b", "qwen3-32b", "deepseek-r1"}) {
    INFO(id);
    CHECK(c.find_model(id) != nullptr);
  }
  for (const char* id : {"vllm", "sglang", "trtllm", "tokenspeed", "llamacpp", "torch-reference"}) {
    INFO(id);
    CHECK(c.find_engine(id) != nullptr);
  }
  // The seed's table marks 55 verified model-chip recipes (its filled squares, counted row by row).
  CHECK(c.recipes.size() >= 55);
  // GLM-5.3's architecture is not public: the card must say its fields are estimates.
  CHECK_FALSE(c.model("glm-5.3").unverified.empty());
  // Layer groups add up to the documented layer counts.
  CHECK(c.model("gpt-oss-120b").num_layers() == 36);
  CHECK(c.model("nemotron-3-ultra").num_layers() == 108);
  CHECK(c.model("kimi-k3").num_layers() == 93);
}

TEST_CASE("bad catalog edits are reported with file, pointer and reason") {
  ScratchCatalog s;
  const fs::path h200 = fs::path("hardware_db") / "accelerators" / "h200.json";
  SUBCASE("misspelled key") {
    s.edit(h200, [](auto& j) {
      j["hbm_bandwith_bytes_per_s"] = j["hbm_bandwidth_bytes_per_s"];
      j.erase("hbm_bandwidth_bytes_per_s");
    });
    // The missing correct key is reported first (keys are read in a fixed order).
    CHECK(s.error() == s.file(h200) + ": /hbm_bandwidth_bytes_per_s: missing required field");
  }
  SUBCASE("unknown extra key") {
    s.edit(h200, [](auto& j) { j["hbm_bandwith_bytes_per_s"] = 1; });
    CHECK(s.error() == s.file(h200) + ": /hbm_bandwith_bytes_per_s: unknown key");
  }
  SUBCASE("wrong type") {
    s.edit(h200, [](auto& j) { j["hbm_bytes"] = "141 GB"; });
    CHECK(s.error() == s.file(h200) + ": /hbm_bytes: expected a number, got string");
  }
  SUBCASE("negative") {
    s.edit(h200, [](auto& j) { j["power_watts"] = -700; });
    CHECK(s.error() == s.file(h200) + ": /power_watts: must be positive");
  }
  SUBCASE("zero where positive is required") {
    s.edit(h200, [](auto& j) { j["hbm_bytes"] = 0; });
    CHECK(s.error() == s.file(h200) + ": /hbm_bytes: must be positive");
  }
  SUBCASE("a number without its source") {
    s.edit(h200, [](auto& j) { j["sources"].erase("hbm_bytes"); });
    CHECK(s.error() == s.file(h200) + ": /sources: no source given for 'hbm_bytes'");
  }
  SUBCASE("an all-in power without its source, or below the chip's own") {
    s.edit(h200, [](auto& j) { j["sources"].erase("all_in_power_watts"); });
    CHECK(s.error() == s.file(h200) + ": /sources: no source given for 'all_in_power_watts'");
    s.edit(h200, [](auto& j) {
      j["sources"]["all_in_power_watts"] = "a test";
      j["all_in_power_watts"] = 500;
    });
    CHECK(s.error() == s.file(h200) +
                           ": /all_in_power_watts: below the chip's own power_watts (700 W): an all-in figure "
                           "includes the chip");
  }
  SUBCASE("nested price entry") {
    s.edit(h200, [](auto& j) { j["prices"][0]["contract"] = "lease"; });
    CHECK(s.error().rfind(s.file(h200) + ": /prices/0/contract: 'lease' is not one of", 0) == 0);
  }
  SUBCASE("truncated file") {
    s.write(h200, "{\"id\": \"h200\", ");
    CHECK(s.error().rfind(s.file(h200) + ": /: invalid JSON", 0) == 0);
  }
  SUBCASE("model card: layer groups") {
    const fs::path m = fs::path("models") / "llama-3.1-8b.json";
    s.edit(m, [](auto& j) { j["layer_groups"][0]["mixer"]["num_kv_heads"] = 7; });
    CHECK(s.error() == s.file(m) + ": /layer_groups/0/mixer/num_kv_heads: must divide num_q_heads");
  }
  SUBCASE("recipe naming an unknown model") {
    auto recipes = s.root / "models" / "recipes";
    auto first = fs::directory_iterator(recipes)->path();
    for (const auto& e : fs::directory_iterator(recipes)) {
      if (e.path() < first) first = e.path();
    }
    auto rel = fs::relative(first, s.root);
    s.edit(rel, [](auto& j) { j["model"] = "no-such-model"; });
    CHECK(s.error() == s.file(rel) + ": /model: unknown id 'no-such-model'");
  }
  SUBCASE("engine card without its KV admission policy") {
    // The admission policy is engine behaviour read from the card: no default, no id test.
    const fs::path e = fs::path("hardware_db") / "engines" / "trtllm.json";
    s.edit(e, [](auto& j) { j.erase("kv_admission"); });
    CHECK(s.error() == s.file(e) + ": /kv_admission: missing required field");
  }
  SUBCASE("engine card with an unknown KV admission policy") {
    const fs::path e = fs::path("hardware_db") / "engines" / "trtllm.json";
    s.edit(e, [](auto& j) { j["kv_admission"] = "max-utilization"; });
    CHECK(s.error().rfind(s.file(e) + ": /kv_admission: 'max-utilization' is not one of", 0) == 0);
  }
  SUBCASE("engine card without serves_production") {
    // Whether an engine is offered to players is a card field, not an id test.
    const fs::path e = fs::path("hardware_db") / "engines" / "torch-reference.json";
    s.edit(e, [](auto& j) { j.erase("serves_production"); });
    CHECK(s.error() == s.file(e) + ": /serves_production: missing required field");
  }
  SUBCASE("engine card's serves_production without its source") {
    const fs::path e = fs::path("hardware_db") / "engines" / "sglang.json";
    s.edit(e, [](auto& j) { j["sources"].erase("serves_production"); });
    CHECK(s.error() == s.file(e) + ": /sources: no source given for 'serves_production'");
  }
  SUBCASE("engine card's KV admission policy without its source") {
    const fs::path e = fs::path("hardware_db") / "engines" / "vllm.json";
    s.edit(e, [](auto& j) { j["sources"].erase("kv_admission"); });
    CHECK(s.error() == s.file(e) + ": /sources: no source given for 'kv_admission'");
  }
  SUBCASE("engine card without its KV memory budget, or with a bad one") {
    // How much memory the KV cache gets is engine behaviour read from the card, with its source.
    const fs::path e = fs::path("hardware_db") / "engines" / "sglang.json";
    s.edit(e, [](auto& j) { j.erase("kv_memory"); });
    CHECK(s.error() == s.file(e) + ": /kv_memory: missing required field");
  }
  SUBCASE("engine card with a KV memory fraction of 0") {
    const fs::path e = fs::path("hardware_db") / "engines" / "vllm.json";
    s.edit(e, [](auto& j) { j["kv_memory"]["fraction"] = 0; });
    CHECK(s.error() == s.file(e) + ": /kv_memory/fraction: must be in (0, 1]");
  }
  SUBCASE("engine card with an unknown KV memory basis") {
    const fs::path e = fs::path("hardware_db") / "engines" / "trtllm.json";
    s.edit(e, [](auto& j) { j["kv_memory"]["of"] = "spare"; });
    CHECK(s.error().rfind(s.file(e) + ": /kv_memory/of: 'spare' is not one of", 0) == 0);
  }
  SUBCASE("engine card's KV memory budget without its source") {
    const fs::path e = fs::path("hardware_db") / "engines" / "trtllm.json";
    s.edit(e, [](auto& j) { j["sources"].erase("kv_memory"); });
    CHECK(s.error() == s.file(e) + ": /sources: no source given for 'kv_memory'");
  }
  SUBCASE("engine card with an unknown running-request limit, or one without its source") {
    const fs::path e = fs::path("hardware_db") / "engines" / "sglang.json";
    s.edit(e, [](auto& j) { j["running_limit"] = "unbounded"; });
    CHECK(s.error() == s.file(e) + ": /running_limit: 'unbounded' is not one of setting, kv-pool");
  }
  SUBCASE("engine card's running-request limit without its source") {
    const fs::path e = fs::path("hardware_db") / "engines" / "sglang.json";
    s.edit(e, [](auto& j) { j["sources"].erase("running_limit"); });
    CHECK(s.error() == s.file(e) + ": /sources: no source given for 'running_limit'");
  }
  SUBCASE("recipe asking for more than one replica") {
    // A recipe is one replica; replicas are set where it is used. "data_parallel": 1 still loads.
    const fs::path r = fs::path("models") / "recipes" / "gpt-oss-120b__h200.json";
    s.edit(r, [](auto& j) { j["data_parallel"] = 2; });
    CHECK(s.error() == s.file(r) +
                           ": /data_parallel: a recipe describes one replica: data_parallel must be 1 (set "
                           "replicas where the recipe is used)");
  }
  SUBCASE("engine id that does not match its file") {
    const fs::path e = fs::path("hardware_db") / "engines" / "vllm.json";
    s.edit(e, [](auto& j) { j["id"] = "vlm"; });
    CHECK(s.error() == s.file(e) + ": /id: 'vlm' does not match the file name");
  }
}
