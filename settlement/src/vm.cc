#include "cfx/settlement/vm.h"

#include <cstdio>
#include <cstdlib>

namespace cfx::settlement {
namespace {

int64_t Checked(__int128 v) {
  // A broken invariant (absurd positions or prices), not a business outcome: stop.
  if (v > INT64_MAX || v < INT64_MIN) {
    std::fprintf(stderr, "cfx settlement: variation margin overflows int64\n");
    std::abort();
  }
  return static_cast<int64_t>(v);
}

}  // namespace

int64_t VariationMarginMicroUsd(const DayActivity& a, int64_t settle, int64_t prior_settle) {
  __int128 ticks = static_cast<__int128>(a.traded_qty) * settle - a.traded_qty_px;
  if (a.prior_qty != 0) ticks += static_cast<__int128>(a.prior_qty) * (settle - prior_settle);
  return Checked(ticks * kMicroUsdPerTickContract);
}

int64_t FinalVmMicroUsd(int64_t qty, int64_t fsp, int64_t settle) {
  return Checked(static_cast<__int128>(qty) * (fsp - settle) * kMicroUsdPerTickContract);
}

}  // namespace cfx::settlement
