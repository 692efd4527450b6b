// Token prices and token counts: what a customer pays for input, cached input and output tokens.
#pragma once

#include <string>

#include "sim/data/model_card.h"

namespace tycoon::econ {

// List prices in USD per million tokens, by token type.
struct TokenPrices {
  double input_usd_per_mtok = 0;
  double cached_input_usd_per_mtok = 0;
  double output_usd_per_mtok = 0;

  bool operator==(const TokenPrices&) const = default;
};

// Tokens billed in some period. `input_tokens` counts every prompt token, the cached ones included;
// `cached_input_tokens` is the part served from the prefix cache and billed at the cached price.
// Doubles: hour totals are scaled from sample windows and need not be whole.
struct TokenCounts {
  double input_tokens = 0;
  double cached_input_tokens = 0;
  double output_tokens = 0;

  TokenCounts& operator+=(const TokenCounts& o);
  TokenCounts scaled(double factor) const;
};

// Tokens billed for steady serving that generates `output_tokens` (say per hour), with input and
// cached input tokens in the proportion `sample` counted them (a simulated window's completed
// requests). A sample without output tokens gives output only.
TokenCounts at_output_rate(const TokenCounts& sample, double output_tokens);

// The model card's market price (competitors' list price) as TokenPrices.
TokenPrices from_market_price(const data::MarketPrice& p);

// Revenue in USD: uncached input × input price + cached input × cached price + output × output price.
double revenue_usd(const TokenCounts& tokens, const TokenPrices& prices);

// What one average request costs a customer, in USD: `input_tokens` prompt tokens of which
// `cached_input_share` are billed at the cached price, plus `output_tokens`.
double price_per_request_usd(const TokenPrices& prices, double input_tokens, double cached_input_share,
                             double output_tokens);

// Multiplies every price by `factor` (a competitor's price cut is factor < 1).
TokenPrices scaled(const TokenPrices& prices, double factor);

// Dollars with cents, as the game's messages write them: "$12.30" (a loss: "$-4.00").
std::string usd_text(double usd);

}  // namespace tycoon::econ
