#include "sim/classroom/answer_key.h"

#include "sim/classroom/hand_in.h"

namespace tycoon::classroom {

bool answer_key_shown(std::optional<std::int64_t> deadline_unix_s, std::optional<std::int64_t> now_unix_s) {
  return now_unix_s && deadline_passed(deadline_unix_s, *now_unix_s);
}

game::GameSummary without_answer_key(game::GameSummary summary) {
  if (summary.counterfactuals && summary.counterfactuals->reference) {
    summary.counterfactuals->reference->description.clear();
  }
  summary.gap_to_reference.clear();
  summary.what_to_try.clear();
  summary.answer_key_hidden = true;
  return summary;
}

}  // namespace tycoon::classroom
