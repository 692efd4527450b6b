#include "ui/concepts.h"

#include <cstdio>
#include <string>

#include <imgui.h>

#include "sim/econ/ledger.h"
#include "ui/theme.h"

namespace tycoon::ui {

std::string_view concept_title(Concept c) {
  switch (c) {
    case Concept::kMemoryBoundDecode:
      return "Memory-bound decode";
    case Concept::kBatchingTradeoff:
      return "The batching trade-off";
    case Concept::kPrefixCaching:
      return "Prefix caching";
    case Concept::kSpeculativeDecoding:
      return "Speculative decoding";
    case Concept::kTensorParallel:
      return "Tensor parallelism";
    case Concept::kKvCache:
      return "KV cache";
    case Concept::kPrecision:
      return "Precision";
    case Concept::kCudaGraphs:
      return "CUDA graphs";
    case Concept::kDisaggregation:
      return "Disaggregated prefill and decode";
    case Concept::kSlo:
      return "Service-level objective";
    case Concept::kGrossMargin:
      return "Gross margin";
    case Concept::kProvenance:
      return "Provenance";
    case Concept::kContracts:
      return "GPU contracts";
    case Concept::kPareto:
      return "Pareto front";
    case Concept::kPriceElasticity:
      return "Price elasticity";
    case Concept::kCount:
      break;
  }
  return "";
}

std::string_view concept_sentence(Concept c) {
  switch (c) {
    case Concept::kMemoryBoundDecode:
      return "Generating a token reads every weight and the whole KV cache from HBM but does little math on "
             "them, so a decode step is limited by memory bandwidth, not FLOPs.";
    case Concept::kBatchingTradeoff:
      return "A bigger batch shares each weight read among more users, raising tokens per GPU, but every "
             "user waits longer per token: throughput per GPU and speed per user pull against each other.";
    case Concept::kPrefixCaching:
      return "Requests that resend the same prompt prefix (system prompts, agent histories) reuse its cached "
             "KV blocks instead of recomputing them, cutting prefill work and time to first token.";
    case Concept::kSpeculativeDecoding:
      return "A small draft model proposes several tokens that the big model checks in one step; every "
             "accepted draft is a token gained for the price of one memory-bound step.";
    case Concept::kTensorParallel:
      return "Splitting each layer over N GPUs divides the weights (more room for KV cache, faster steps) "
             "but adds an all-reduce per layer and rents N GPUs per replica.";
    case Concept::kKvCache:
      return "Each running sequence keeps keys and values for its whole context in GPU memory; what is left "
             "after the weights decides how many users fit in a batch.";
    case Concept::kPrecision:
      return "Lower-precision weights (fp8, fp4) halve or quarter the bytes read per step and use faster "
             "tensor cores, at some risk to output quality.";
    case Concept::kDisaggregation:
      return "Prompts run on a prefill pool and answers stream from a decode pool of its own chips; each "
             "prompt's KV cache crosses a link between them, which adds to the time to first token.";
    case Concept::kCudaGraphs:
      return "Replaying a whole decode step as one captured graph removes the CPU cost of launching "
             "hundreds of small kernels.";
    case Concept::kSlo:
      return "A request meets the SLO when its time to first token and its time per output token are both "
             "under the segment's targets; missing it costs reputation and then demand.";
    case Concept::kGrossMargin: {
      // The margin lesson's own rule (econ::LedgerTotals::profit_change_served_faster), worked
      // at a 10% margin: the same tokens served kLessonSpeedup times faster.
      static const std::string sentence = [] {
        const econ::LedgerTotals at_10_percent{1.0, 0.9, 0.0};
        const double gain = at_10_percent.profit_change_served_faster(econ::kLessonSpeedup).value_or(0);
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "(Revenue - GPU cost) / revenue: at a 10%% margin, serving the same tokens %.0f%% faster "
                      "raises profit by %.0f%%.",
                      100 * (econ::kLessonSpeedup - 1), 100 * gain);
        return std::string(buf);
      }();
      return sentence;
    }
    case Concept::kProvenance:
      return "Every performance number says where it comes from: measured on this chip, interpolated, "
             "extrapolated from another chip, or datasheet only.";
    case Concept::kContracts:
      return "On-demand GPUs cost most but can be released any time; reserved ones are cheap but committed "
             "for a term; spot ones are cheapest and can be reclaimed mid-hour.";
    case Concept::kPareto:
      return "Each point is one concurrency; the front is the best tokens per GPU reachable at each speed per "
             "user, and a better recipe moves the whole front up and to the right.";
    case Concept::kPriceElasticity:
      return "Demand follows (your price / market price)^-elasticity: a cut wins customers, a rise loses them, "
             "more so the higher the elasticity.";
    case Concept::kCount:
      break;
  }
  return "";
}

void concept_tooltip(Concept c) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
  std::string_view t = concept_title(c), s = concept_sentence(c);
  ImGui::TextUnformatted(t.data(), t.data() + t.size());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextUnformatted(s.data(), s.data() + s.size());
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void heading_with_help(std::string_view text, Concept c) {
  ImGui::PushFont(theme::font_bold());
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopFont();
  help_marker(c);
  ImVec2 p = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y - 2), ImVec2(p.x + w, p.y - 2), theme::kBorder);
  ImGui::Dummy(ImVec2(0, 2));
}

void help_marker(Concept c) {
  ImGui::SameLine(0, 4);
  ImGui::TextDisabled("(?)");
  concept_tooltip(c);
}

}  // namespace tycoon::ui
