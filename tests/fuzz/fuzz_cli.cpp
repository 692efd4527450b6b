// libFuzzer target: command-line argument vectors. The bytes are split at newlines into argv
// (after "tycoon"); every command's flags are parsed and checked (CLI11 plus our validators), and
// the commands that only read and print quickly (list, predict) also run. The others would
// simulate for as long as their flags ask (bounded by the long-run limits, not by a fuzzer's
// timeout) or write files, so they stop after the parse. Output goes to /dev/null.
// Seeds: command lines of every command, written by scripts/fuzz.sh.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"tycoon"};
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 64) return 0;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = tycoon::cli::run_tycoon(static_cast<int>(args.size()), argv.data(),
                                         [](const std::string& name) { return name == "list" || name == "predict"; });
  // Bad input is exit 2 with a message; exit 1 (an internal failure) is a finding too.
  if (rc != 0 && rc != 2) __builtin_trap();
  return 0;
}
