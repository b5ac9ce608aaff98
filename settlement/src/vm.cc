#include "cfx/settlement/vm.h"

#include <cstdio>
#include <cstdlib>

namespace cfx::settlement {
namespace {

[[noreturn]] void Overflow() {
  // A broken invariant (absurd positions or prices), not a business outcome: stop.
  std::fprintf(stderr, "cfx settlement: variation margin overflows int64\n");
  std::abort();
}

}  // namespace

std::optional<common::MicroUsd> TryVariationMarginMicroUsd(const DayActivity& a,
                                                           common::PriceTicks settle,
                                                           common::PriceTicks prior_settle) {
  // Summed in __int128 and checked once: a term may exceed int64 while the total fits.
  // Every factor is an int64, so no product of two overflows __int128; the last one is
  // checked against it.
  __int128 ticks = static_cast<__int128>(a.traded_qty.value()) * settle.value() - a.traded_qty_px;
  if (a.prior_qty != common::Qty(0)) {
    ticks += static_cast<__int128>(a.prior_qty.value()) *
             (static_cast<__int128>(settle.value()) - prior_settle.value());
  }
  constexpr __int128 kLimit = static_cast<__int128>(INT64_MAX) / kMicroUsdPerTickContract.value();
  if (ticks > kLimit || ticks < -kLimit) return std::nullopt;
  return common::MicroUsd(static_cast<int64_t>(ticks * kMicroUsdPerTickContract.value()));
}

std::optional<common::MicroUsd> TryFinalVmMicroUsd(common::Qty qty, common::PriceTicks fsp,
                                                   common::PriceTicks settle) {
  int64_t diff;
  if (__builtin_sub_overflow(fsp.value(), settle.value(), &diff)) return std::nullopt;
  return common::MicroUsdOf(qty, common::PriceTicks(diff), kMicroUsdPerTickContract);
}

common::MicroUsd VariationMarginMicroUsd(const DayActivity& a, common::PriceTicks settle,
                                         common::PriceTicks prior_settle) {
  std::optional<common::MicroUsd> vm = TryVariationMarginMicroUsd(a, settle, prior_settle);
  if (!vm) Overflow();
  return *vm;
}

common::MicroUsd FinalVmMicroUsd(common::Qty qty, common::PriceTicks fsp,
                                 common::PriceTicks settle) {
  std::optional<common::MicroUsd> vm = TryFinalVmMicroUsd(qty, fsp, settle);
  if (!vm) Overflow();
  return *vm;
}

}  // namespace cfx::settlement
