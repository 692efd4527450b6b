// Numbers as the player reads them: always with a unit, short, and the same everywhere.
// SI values in (dollars, tokens, seconds, bytes), text out.
#pragma once

#include <string>
#include <string_view>

#include "sim/perf/calibration_profile.h"

namespace tycoon::ui {

// "$1,234", "$12.3k", "$4.56M", "-$310"; cents below $100.
std::string fmt_usd(double usd);
// Always signed: "+$120", "-$4.2k".
std::string fmt_usd_signed(double usd);
// "$0.080" per million tokens: three significant decimals for small prices.
std::string fmt_usd_per_mtok(double usd_per_mtok);
// "$3.50/GPU-h".
std::string fmt_usd_per_gpu_hour(double usd);
// "82.4%"; `share` in [0, 1].
std::string fmt_pct(double share, int decimals = 1);
// "+3.5%" relative change.
std::string fmt_pct_signed(double share, int decimals = 1);
// "1.23M tok", "840 tok".
std::string fmt_tokens(double tokens);
// "12.3k tok/s".
std::string fmt_tok_per_s(double tok_per_s);
// "1.25 req/s".
std::string fmt_req_per_s(double req_per_s);
// "35 ms", "1.20 s", "12.5 µs".
std::string fmt_seconds(double s);
// "80.0 GB" (decimal gigabytes, as datasheets do).
std::string fmt_bytes(double bytes);
// "3.35 TB/s".
std::string fmt_bytes_per_s(double bytes_per_s);
// "989 TFLOP/s".
std::string fmt_flop_per_s(double flop_per_s);
// "1.2k", "3.4M": a bare count.
std::string fmt_count(double n);
// "Day 3, 14:00" for a game hour.
std::string fmt_game_time(long long hour);
// "h 14" or "day 2 14:00" shortly, for axes and feeds.
std::string fmt_hour_short(long long hour);
// "#12": an id as shown in tables.
std::string id_label(long long id);
// "×1.12".
std::string fmt_factor(double f);

// A short label and a one-line explanation of a provenance.
std::string_view provenance_label(perf::Provenance p);

}  // namespace tycoon::ui
