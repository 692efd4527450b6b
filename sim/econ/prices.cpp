#include "sim/econ/prices.h"

#include <cstdio>

namespace tycoon::econ {

namespace {
constexpr double kTokensPerMtok = 1e6;
}

TokenCounts& TokenCounts::operator+=(const TokenCounts& o) {
  input_tokens += o.input_tokens;
  cached_input_tokens += o.cached_input_tokens;
  output_tokens += o.output_tokens;
  return *this;
}

TokenCounts TokenCounts::scaled(double factor) const {
  return {input_tokens * factor, cached_input_tokens * factor, output_tokens * factor};
}

TokenCounts at_output_rate(const TokenCounts& sample, double output_tokens) {
  const double per_output = sample.output_tokens > 0 ? 1.0 / sample.output_tokens : 0.0;
  return {sample.input_tokens * per_output * output_tokens, sample.cached_input_tokens * per_output * output_tokens,
          output_tokens};
}

TokenPrices from_market_price(const data::MarketPrice& p) {
  return {p.input_usd_per_mtok, p.cached_input_usd_per_mtok, p.output_usd_per_mtok};
}

double revenue_usd(const TokenCounts& tokens, const TokenPrices& prices) {
  double uncached = tokens.input_tokens - tokens.cached_input_tokens;
  return (uncached * prices.input_usd_per_mtok + tokens.cached_input_tokens * prices.cached_input_usd_per_mtok +
          tokens.output_tokens * prices.output_usd_per_mtok) /
         kTokensPerMtok;
}

double price_per_request_usd(const TokenPrices& prices, double input_tokens, double cached_input_share,
                             double output_tokens) {
  TokenCounts t{input_tokens, input_tokens * cached_input_share, output_tokens};
  return revenue_usd(t, prices);
}

TokenPrices scaled(const TokenPrices& prices, double factor) {
  return {prices.input_usd_per_mtok * factor, prices.cached_input_usd_per_mtok * factor,
          prices.output_usd_per_mtok * factor};
}

std::string usd_text(double usd) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

}  // namespace tycoon::econ
