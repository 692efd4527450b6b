#include "sim/data/kv_link.h"

#include "sim/data/json_reader.h"

namespace tycoon::data {

const KvLinkCard* KvLinkCatalog::find(std::string_view id) const {
  for (const auto& l : links) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

KvLinkCatalog load_kv_links(const std::filesystem::path& path) {
  auto json = parse_json_file(path);
  ObjectReader r(json, path.string(), "");
  KvLinkCatalog c;
  c.file = path.string();
  (void)r.string("description");
  auto links = r.array("links");
  if (links.size() == 0) links.fail_here("at least one link is required");
  for (std::size_t i = 0; i < links.size(); ++i) {
    ObjectReader l = links.object(i);
    KvLinkCard k;
    k.id = l.string("id");
    k.name = l.string("name");
    if (c.find(k.id)) l.fail("id", "link '" + k.id + "' is listed twice");
    if (l.has("bandwidth_from")) {
      if (l.has("bandwidth_bytes_per_s"))
        l.fail("bandwidth_bytes_per_s", "give bandwidth_from or a bandwidth, not both");
      k.bandwidth_from = l.choice("bandwidth_from", kKvLinkBandwidthFromNames) == 0 ? KvLinkBandwidthFrom::kScaleUp
                                                                                    : KvLinkBandwidthFrom::kScaleOut;
    } else {
      k.bandwidth_bytes_per_s = l.number("bandwidth_bytes_per_s", Bound::kPositive);
    }
    k.latency_s = l.number("latency_s", Bound::kNonNegative);
    l.finish();
    c.links.push_back(std::move(k));
  }
  ObjectReader s = r.object("sources");
  for (const auto& k : c.links) {
    if (!s.has(k.id)) s.fail_here("link '" + k.id + "' has no source");
    c.sources[k.id] = s.string(k.id);
  }
  s.finish();
  r.finish();
  return c;
}

}  // namespace tycoon::data
