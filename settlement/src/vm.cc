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

common::MicroUsd Checked(__int128 v) {
  if (v > INT64_MAX || v < INT64_MIN) Overflow();
  return common::MicroUsd(static_cast<int64_t>(v));
}

}  // namespace

common::MicroUsd VariationMarginMicroUsd(const DayActivity& a, common::PriceTicks settle,
                                         common::PriceTicks prior_settle) {
  // Summed in __int128 and checked once: a term may exceed int64 while the total fits.
  __int128 ticks = static_cast<__int128>(a.traded_qty.value()) * settle.value() - a.traded_qty_px;
  if (a.prior_qty != common::Qty(0)) {
    ticks += static_cast<__int128>(a.prior_qty.value()) * (settle - prior_settle).value();
  }
  return Checked(ticks * kMicroUsdPerTickContract.value());
}

common::MicroUsd FinalVmMicroUsd(common::Qty qty, common::PriceTicks fsp,
                                 common::PriceTicks settle) {
  std::optional<common::MicroUsd> vm =
      common::MicroUsdOf(qty, fsp - settle, kMicroUsdPerTickContract);
  if (!vm) Overflow();
  return *vm;
}

}  // namespace cfx::settlement
