// The exact-arithmetic boundary of the engine: the only place a double becomes money.
#include <cmath>

#include "cfx/common/decimal.h"
#include "cfx/gpu_valuation/margin_engine.h"

namespace cfx::gpu_valuation {

int64_t ScenarioValueChangeMicro(int64_t settle_ticks, double a, double b, double weight) {
  // SPEC §10 fixes this computation in double, on the host, once per contract and scenario;
  // the evaluation order below is part of the contract (docs/valuation.md), because any
  // other order may change the last bit and so a micro-dollar.
  const double settle = static_cast<double>(settle_ticks) / 1000.0;
  const double moved = settle * (1.0 + a) * (1.0 + b);
  const double value = (moved - settle) * 1000.0 * weight * 1e6;
  return common::RoundHalfEven(value);
}

std::string FormatMicroAsUsd(int64_t micro) {
  return common::FormatScaled(common::DivRoundHalfEven(micro, 10'000), 2);
}

}  // namespace cfx::gpu_valuation
