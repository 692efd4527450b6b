// The ideas the game teaches, each in one sentence, for tooltips next to the levers they explain.
#pragma once

#include <array>
#include <string_view>

namespace tycoon::ui {

enum class Concept {
  kMemoryBoundDecode,
  kBatchingTradeoff,
  kPrefixCaching,
  kSpeculativeDecoding,
  kTensorParallel,
  kKvCache,
  kPrecision,
  kCudaGraphs,
  kSlo,
  kGrossMargin,
  kProvenance,
  kContracts,
  kPareto,
  kPriceElasticity,
  kDisaggregation,
  kCount
};

std::string_view concept_title(Concept c);
// One sentence.
std::string_view concept_sentence(Concept c);

// A muted "(?)" after the previous item; hovering shows the concept.
void help_marker(Concept c);
// A section heading with a "(?)" for the concept on the same line.
void heading_with_help(std::string_view text, Concept c);
// Shows the concept as the tooltip of the previous item when it is hovered.
void concept_tooltip(Concept c);

}  // namespace tycoon::ui
