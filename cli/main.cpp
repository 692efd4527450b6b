// `tycoon`: the command line of Inference Tycoon (analysts, CI, educators' batch runs).
#include "cli/commands.h"

int main(int argc, char** argv) { return tycoon::cli::run_tycoon(argc, argv); }
