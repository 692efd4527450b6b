// A deployment's resolved form as JSON, written once for every output that records it: the
// benchmark's "config" (cli/benchmark_command.cpp) and the sweep's resolved configuration, whose
// hash names a point in the journal (sim/analysis/sweep_resolve.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/perf/deployment.h"

namespace tycoon::perf {

// {model, hardware, engine (catalog ids), precision, kv_cache_dtype (names of to_string),
// tensor_parallel, expert_parallel, cuda_graphs, kv_page_tokens, spec_decode: {method,
// num_draft_tokens, acceptance_length} or null when the recipe drafts no tokens}. The replica
// count, memory share and op time scales are not part of it (the callers write their own).
nlohmann::json describe_deployment(const Deployment& d);

}  // namespace tycoon::perf
