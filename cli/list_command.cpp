// `tycoon list hardware|models|engines|recipes`: the catalogs with their sources (for a chip, also
// where its performance calibration comes from).
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/data/catalog.h"
#include "sim/perf/profile_lookup.h"

namespace tycoon::cli {

namespace {

struct ListOptions {
  std::string what;
  bool json = false;
};

std::string src(const std::map<std::string, std::string>& sources, const std::string& key) {
  auto it = sources.find(key);
  return it == sources.end() ? "-" : it->second;
}

void list_hardware(const data::Catalog& c, bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json) {
    std::printf("%-8s %-30s %8s %9s %9s %9s %9s %-19s  %s\n", "id", "name", "HBM GB", "HBM TB/s", "bf16 TF", "fp8 TF",
                "$/h o-d", "calibration", "sources");
  }
  for (const auto& a : c.accelerators) {
    auto od = a.price(Contract::kOnDemand);
    const auto cal = perf::calibration_for(c, a);
    if (json) {
      nlohmann::json prices = nlohmann::json::array();
      for (const auto& p : a.prices) {
        prices.push_back({{"contract", to_string(p.contract)},
                          {"price_usd_per_gpu_hour", p.price_usd_per_gpu_hour},
                          {"provider", p.provider},
                          {"source", p.source}});
      }
      out.push_back({{"id", a.id},
                     {"name", a.name},
                     {"vendor", to_string(a.vendor)},
                     {"hbm_bytes", a.hbm_bytes},
                     {"runtime_memory_bytes", a.runtime_memory_bytes},
                     {"hbm_bandwidth_bytes_per_s", a.hbm_bandwidth_bytes_per_s},
                     {"dense_bf16_flop_per_s", a.dense_bf16_flop_per_s},
                     {"dense_fp8_flop_per_s", a.dense_fp8_flop_per_s},
                     {"dense_fp4_flop_per_s", a.dense_fp4_flop_per_s},
                     {"prices", prices},
                     {"unverified", a.unverified},
                     {"sources", a.sources},
                     {"calibration", {{"provenance", perf::to_string(cal.provenance)}, {"source", cal.source}}}});
    } else {
      std::printf("%-8s %-30s %8.0f %9.2f %9.0f %9.0f %9s %-19s  %s\n", a.id.c_str(), a.name.c_str(), a.hbm_bytes / 1e9,
                  a.hbm_bandwidth_bytes_per_s / 1e12, a.dense_bf16_flop_per_s / 1e12, a.dense_fp8_flop_per_s / 1e12,
                  od ? format_fixed(od->price_usd_per_gpu_hour, 2).c_str() : "-",
                  std::string(perf::to_string(cal.provenance)).c_str(),
                  src(a.sources, "hbm_bandwidth_bytes_per_s").c_str());
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
}

void list_models(const data::Catalog& c, bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json) {
    std::printf("%-18s %-24s %9s %9s %6s %6s %5s %12s  %s\n", "id", "name", "total B", "active B", "layers", "MoE",
                "prec", "$/M in/out", "source");
  }
  for (const auto& m : c.models) {
    if (json) {
      out.push_back({{"id", m.id},
                     {"name", m.name},
                     {"total_params", m.total_params},
                     {"active_params", m.active_params},
                     {"num_layers", m.num_layers()},
                     {"hidden_size", m.hidden_size},
                     {"moe", m.is_moe()},
                     {"native_precision", to_string(m.native_precision)},
                     {"max_context_tokens", m.max_context_tokens},
                     {"market_price",
                      {{"input_usd_per_mtok", m.market_price.input_usd_per_mtok},
                       {"cached_input_usd_per_mtok", m.market_price.cached_input_usd_per_mtok},
                       {"output_usd_per_mtok", m.market_price.output_usd_per_mtok},
                       {"source", m.market_price.source}}},
                     {"unverified", m.unverified},
                     {"sources", m.sources}});
    } else {
      std::string price = format_fixed(m.market_price.input_usd_per_mtok, 2) + "/" +
                          format_fixed(m.market_price.output_usd_per_mtok, 2);
      std::printf("%-18s %-24s %9.1f %9.1f %6d %6s %5s %12s  %s%s\n", m.id.c_str(), m.name.c_str(),
                  m.total_params / 1e9, m.active_params / 1e9, m.num_layers(), m.is_moe() ? "yes" : "no",
                  std::string(to_string(m.native_precision)).c_str(), price.c_str(),
                  src(m.sources, "layer_groups").c_str(), m.unverified.empty() ? "" : "  [has unverified fields]");
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
}

void list_engines(const data::Catalog& c, bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json)
    std::printf("%-16s %-26s %-10s %6s %12s  %s\n", "id", "name", "version", "graphs", "step ovh ms", "source");
  for (const auto& e : c.engines) {
    if (json) {
      nlohmann::json vendors = nlohmann::json::array();
      for (auto v : e.vendors) vendors.push_back(to_string(v));
      out.push_back(
          {{"id", e.id},
           {"name", e.name},
           {"version", e.version},
           {"vendors", vendors},
           {"supports_cuda_graphs", e.supports_cuda_graphs},
           {"supports_prefix_caching", e.supports_prefix_caching},
           {"supports_chunked_prefill", e.supports_chunked_prefill},
           {"supports_spec_decode", e.supports_spec_decode},
           // The scheduler mechanisms tycoon benchmark offers only where the engine has them.
           {"supports_batch_waiting", e.supports_batch_waiting},
           {"supports_recv_interval", e.supports_recv_interval},
           {"supports_async_scheduling", e.supports_async_scheduling},
           // Whether it keeps scheduling ahead with speculative decoding (null: it never does).
           {"async_scheduling_with_spec_decode",
            e.supports_async_scheduling ? nlohmann::json(e.async_scheduling_with_spec_decode) : nlohmann::json()},
           {"kv_admission", data::kKvAdmissionNames[static_cast<std::size_t>(e.kv_admission)]},
           {"kv_memory",
            {{"fraction", e.kv_memory_fraction},
             {"of", data::kKvMemoryBasisNames[static_cast<std::size_t>(e.kv_memory_basis)]}}},
           {"running_limit", e.running_limit_from_kv_pool ? "kv-pool" : "setting"},
           {"frontend_request_s", e.frontend_request_s},
           {"tokenize_s_per_input_token", e.tokenize_s_per_input_token},
           {"iteration_overhead_s", e.iteration_overhead_s},
           {"per_sequence_overhead_s", e.per_sequence_overhead_s},
           {"sources", e.sources}});
    } else {
      std::printf("%-16s %-26s %-10s %6s %12.3f  %s\n", e.id.c_str(), e.name.c_str(), e.version.c_str(),
                  e.supports_cuda_graphs ? "yes" : "no", e.iteration_overhead_s * 1e3,
                  src(e.sources, "iteration_overhead_s").c_str());
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
}

void list_recipes(const data::Catalog& c, bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json) std::printf("%-34s %-8s %-6s %3s %3s %-9s  %s\n", "model", "chip", "prec", "TP", "EP", "engine", "spec");
  for (const auto& r : c.recipes) {
    if (json) {
      out.push_back({{"model", r.model},
                     {"hardware", r.hardware},
                     {"engine", r.engine},
                     {"precision", to_string(r.precision)},
                     {"tensor_parallel", r.tensor_parallel},
                     {"expert_parallel", r.expert_parallel},
                     {"verified", r.verified},
                     {"source", r.source}});
    } else {
      std::string spec = r.spec_decode ? r.spec_decode->method + " k=" + std::to_string(r.spec_decode->num_draft_tokens)
                                       : std::string("-");
      std::printf("%-34s %-8s %-6s %3d %3d %-9s  %s\n", r.model.c_str(), r.hardware.c_str(),
                  std::string(to_string(r.precision)).c_str(), r.tensor_parallel, r.expert_parallel, r.engine.c_str(),
                  spec.c_str());
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
}

}  // namespace

CommandRunner add_list_command(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<ListOptions>();
  auto* sub = app.add_subcommand("list", "Print a catalog (hardware, models, engines, recipes) with its sources");
  sub->add_option("what", opts->what, "Which catalog")
      ->required()
      ->check(CLI::IsMember({"hardware", "models", "engines", "recipes"}));
  sub->add_flag("--json", opts->json, "JSON on stdout");
  return [opts, &global]() {
    auto catalog = load_catalog_for(global);
    if (opts->what == "hardware") list_hardware(catalog, opts->json);
    if (opts->what == "models") list_models(catalog, opts->json);
    if (opts->what == "engines") list_engines(catalog, opts->json);
    if (opts->what == "recipes") list_recipes(catalog, opts->json);
    return kExitOk;
  };
}

}  // namespace tycoon::cli
