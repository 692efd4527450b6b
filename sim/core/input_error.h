// Bad input (a flag, a scenario, a recipe, a command, a file the user gave) as opposed to an
// internal fault. Front ends map it to "your input" (the CLI: exit 2) and everything else to "our
// bug" (exit 1). The message names the input and the reason.
//
// It derives from std::invalid_argument so that code written against the old convention (catch
// std::invalid_argument for a refusal) keeps working; internal faults throw std::logic_error or
// std::runtime_error, never these.
#pragma once

#include <stdexcept>

namespace tycoon::core {

class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace tycoon::core
