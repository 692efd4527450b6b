#include "sim/classroom/answer_key.h"

#include "sim/classroom/hand_in.h"

namespace tycoon::classroom {

bool answer_key_shown(std::optional<std::int64_t> deadline_unix_s, std::optional<std::int64_t> now_unix_s) {
  return now_unix_s && deadline_passed(deadline_unix_s, *now_unix_s);
}

bool answer_key_hidden_in_play(const game::Scenario& scenario) {
  return scenario.kind == game::ScenarioKind::kClassroom;
}

BriefingKey briefing_key(const game::Scenario& scenario, std::optional<std::int64_t> deadline_unix_s,
                         std::optional<std::int64_t> now_unix_s) {
  const bool shown = answer_key_shown(deadline_unix_s, now_unix_s);
  BriefingKey out;
  if (scenario.question.empty() || scenario.answer_shown(/*finished=*/true, !shown)) out.lesson = scenario.lesson;
  if (shown && scenario.reference_strategy) out.reference_strategy = scenario.reference_strategy->description;
  return out;
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
