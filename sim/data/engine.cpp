#include "sim/data/engine.h"

#include <algorithm>

#include "sim/data/json_reader.h"
#include "sim/data/source_check.h"

namespace tycoon::data {

int kv_pool_running_limit(std::int64_t kv_pool_tokens, std::int64_t context_tokens) {
  const std::int64_t slots = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(static_cast<double>(kv_pool_tokens) /
                                static_cast<double>(std::max<std::int64_t>(context_tokens, 1)) * 512),
      2048, 4096);
  return static_cast<int>(std::max<std::int64_t>(1, std::min(kv_pool_tokens / 2, slots)));
}

bool Engine::runs_on(Vendor v) const { return std::find(vendors.begin(), vendors.end(), v) != vendors.end(); }

double Engine::efficiency_on(Vendor v) const {
  auto it = kernel_efficiency.find(v);
  return it == kernel_efficiency.end() ? 1.0 : it->second;
}

const W4a16MoeKernel* Engine::w4a16_moe_kernel(std::string_view kernel) const {
  auto it = w4a16_moe_kernels.find(std::string(kernel));
  return it == w4a16_moe_kernels.end() ? nullptr : &it->second;
}

Precision Engine::native_fp4_expert_activation_on(Vendor v) const {
  auto it = native_fp4_expert_activation.find(v);
  return it == native_fp4_expert_activation.end() ? Precision::kFp4 : it->second;
}

namespace {

// An object keyed by vendor, each value read by `value(object, key)`.
template <typename T, typename ReadValue>
std::map<Vendor, T> read_per_vendor(ObjectReader& r, const char* field, ReadValue value) {
  std::map<Vendor, T> out;
  auto k = r.object(field);
  for (const auto& key : k.keys()) {
    auto v = parse_enum<Vendor>(key, kVendorNames);
    if (!v) k.fail(key, "unknown vendor");
    out[*v] = value(k, key);
  }
  k.finish();
  return out;
}

// Per-vendor shares in (0, 1]: {"nvidia": 1.0, "amd": 0.7}.
std::map<Vendor, double> read_vendor_shares(ObjectReader& r, const char* field) {
  return read_per_vendor<double>(r, field,
                                 [](ObjectReader& k, const std::string& key) { return k.number(key, Bound::kUnit); });
}

}  // namespace

Engine load_engine(const std::filesystem::path& path) {
  auto json = parse_json_file(path);
  ObjectReader r(json, path.string(), "");
  Engine e;
  e.file = path.string();
  e.id = r.string("id");
  if (e.id != path.stem().string()) r.fail("id", "'" + e.id + "' does not match the file name");
  e.name = r.string("name");
  e.version = r.string("version");
  auto vendors = r.array("vendors");
  if (vendors.size() == 0) vendors.fail_here("at least one vendor is required");
  for (std::size_t i = 0; i < vendors.size(); ++i) {
    auto s = vendors.string(i);
    auto v = parse_enum<Vendor>(s, kVendorNames);
    if (!v) throw LoadError(e.file, vendors.pointer() + "/" + std::to_string(i), "unknown vendor '" + s + "'");
    e.vendors.push_back(*v);
  }
  e.supports_cuda_graphs = r.boolean("supports_cuda_graphs");
  e.supports_prefix_caching = r.boolean("supports_prefix_caching");
  e.supports_chunked_prefill = r.boolean("supports_chunked_prefill");
  e.supports_spec_decode = r.boolean("supports_spec_decode");
  e.supports_batch_waiting = r.optional_boolean("supports_batch_waiting").value_or(false);
  e.supports_recv_interval = r.optional_boolean("supports_recv_interval").value_or(false);
  e.supports_async_scheduling = r.optional_boolean("supports_async_scheduling").value_or(false);
  e.async_scheduling_with_spec_decode = r.optional_boolean("async_scheduling_with_spec_decode").value_or(true);
  e.kv_admission = static_cast<KvAdmission>(r.choice("kv_admission", kKvAdmissionNames));
  e.serves_production = r.boolean("serves_production");
  {
    auto k = r.object("kv_memory");
    e.kv_memory_fraction = k.number("fraction", Bound::kUnit);
    e.kv_memory_basis = static_cast<KvMemoryBasis>(k.choice("of", kKvMemoryBasisNames));
    k.finish();
  }
  if (auto limit = r.optional_string("running_limit")) {
    if (*limit == "kv-pool") {
      e.running_limit_from_kv_pool = true;
    } else if (*limit != "setting") {
      r.fail("running_limit", "'" + *limit + "' is not one of setting, kv-pool");
    }
  }
  e.spec_decode_running_limit =
      static_cast<int>(r.optional_integer("spec_decode_running_limit", Bound::kNonNegative).value_or(0));
  e.iteration_overhead_s = r.number("iteration_overhead_s", Bound::kNonNegative);
  e.per_sequence_overhead_s = r.number("per_sequence_overhead_s", Bound::kNonNegative);
  e.frontend_request_s = r.optional_number("frontend_request_s", Bound::kNonNegative).value_or(0);
  e.tokenize_s_per_input_token = r.optional_number("tokenize_s_per_input_token", Bound::kNonNegative).value_or(0);
  e.kernels_per_dense_layer = r.optional_number("kernels_per_dense_layer", Bound::kNonNegative).value_or(0);
  e.kernels_per_moe_layer = r.optional_number("kernels_per_moe_layer", Bound::kNonNegative).value_or(0);
  e.fused_rotary = r.optional_boolean("fused_rotary").value_or(true);
  e.fused_activation = r.optional_boolean("fused_activation").value_or(true);
  e.fused_moe_routing = r.optional_boolean("fused_moe_routing").value_or(true);
  e.python_eager_ops = r.optional_boolean("python_eager_ops").value_or(false);
  e.fused_qk_norm = r.optional_boolean("fused_qk_norm").value_or(true);
  e.fused_kv_write = r.optional_boolean("fused_kv_write").value_or(true);
  e.kernel_efficiency = read_vendor_shares(r, "kernel_efficiency");
  if (r.has("w4a16_moe_kernels")) {
    auto kernels = r.object("w4a16_moe_kernels");
    for (const auto& name : kernels.keys()) {
      auto k = kernels.object(name);
      W4a16MoeKernel w;
      auto runs_on = k.array("vendors");
      if (runs_on.size() == 0) runs_on.fail_here("at least one vendor is required");
      for (std::size_t i = 0; i < runs_on.size(); ++i) {
        auto v = parse_enum<Vendor>(runs_on.string(i), kVendorNames);
        if (!v) throw LoadError(e.file, runs_on.pointer() + "/" + std::to_string(i), "unknown vendor");
        w.vendors.push_back(*v);
      }
      w.compute_share = k.number("compute_share", Bound::kPositive);
      w.memory_share = k.number("memory_share", Bound::kPositive);
      k.finish();
      e.w4a16_moe_kernels[name] = w;
    }
    kernels.finish();
  }
  if (r.has("native_fp4_expert_activation")) {
    e.native_fp4_expert_activation =
        read_per_vendor<Precision>(r, "native_fp4_expert_activation", [](ObjectReader& k, const std::string& key) {
          auto p = parse_enum<Precision>(k.string(key), kPrecisionNames);
          if (!p || *p == Precision::kInt4) k.fail(key, "must be bf16, fp8 or fp4");
          return *p;
        });
  }
  e.sources = read_sources(r, {"kv_admission", "kv_memory", "serves_production", "iteration_overhead_s",
                               "per_sequence_overhead_s", "kernel_efficiency"});
  for (const char* key : {"kernels_per_dense_layer", "kernels_per_moe_layer", "frontend_request_s",
                          "tokenize_s_per_input_token", "running_limit", "spec_decode_running_limit",
                          "w4a16_moe_kernels", "native_fp4_expert_activation", "supports_batch_waiting",
                          "supports_recv_interval", "supports_async_scheduling", "async_scheduling_with_spec_decode"}) {
    if (r.has(key) && !e.sources.contains(key)) r.fail("sources", std::string("no source given for '") + key + "'");
  }
  if (auto n = r.optional_string("notes")) e.notes = *n;
  r.finish();
  return e;
}

}  // namespace tycoon::data
