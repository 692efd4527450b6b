// Links a disaggregated deployment moves KV caches over (hardware_db/kv_links.json): the
// technology's latency and where its per-GPU bandwidth comes from (the chip card's scale-up or
// scale-out figure, or a number of its own).
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tycoon::data {

enum class KvLinkBandwidthFrom { kScaleUp, kScaleOut, kOwn };
inline constexpr std::array<std::string_view, 2> kKvLinkBandwidthFromNames = {"scale_up", "scale_out"};

struct KvLinkCard {
  std::string id;  // "nvlink", "infiniband", "ethernet"
  std::string name;
  KvLinkBandwidthFrom bandwidth_from = KvLinkBandwidthFrom::kOwn;
  double bandwidth_bytes_per_s = 0;  // per GPU, per direction (kOwn only)
  double latency_s = 0;              // per transfer
};

struct KvLinkCatalog {
  std::string file;
  std::vector<KvLinkCard> links;
  std::map<std::string, std::string> sources;  // link id -> source text (one per link)

  const KvLinkCard* find(std::string_view id) const;
};

// Throws LoadError (file, JSON pointer, reason) on an unknown key, a missing source, a bad value.
KvLinkCatalog load_kv_links(const std::filesystem::path& path);

}  // namespace tycoon::data
