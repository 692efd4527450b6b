#include "sim/perf/deployment_json.h"

#include <string>

namespace tycoon::perf {

nlohmann::json describe_deployment(const Deployment& d) {
  nlohmann::json spec = nullptr;
  if (d.spec_decode && d.spec_decode->num_draft_tokens > 0) {
    spec = {{"method", d.spec_decode->method},
            {"num_draft_tokens", d.spec_decode->num_draft_tokens},
            {"acceptance_length", d.spec_decode->acceptance_length}};
  }
  nlohmann::json j = {{"model", d.model->id},
                      {"hardware", d.hardware->id},
                      {"engine", d.engine->id},
                      {"precision", std::string(to_string(d.precision))},
                      {"kv_cache_dtype", std::string(to_string(d.kv_cache_dtype))},
                      {"tensor_parallel", d.tensor_parallel},
                      {"expert_parallel", d.expert_parallel},
                      {"cuda_graphs", d.cuda_graphs},
                      {"kv_page_tokens", d.kv_page_tokens},
                      {"spec_decode", spec}};
  // Only when the operator chose it (an engine's default is in its card).
  if (d.expert_activation) j["expert_activation"] = std::string(to_string(*d.expert_activation));
  if (d.mxfp4_backend) j["mxfp4_backend"] = *d.mxfp4_backend;
  return j;
}

}  // namespace tycoon::perf
