// The unit types (engine/units/: PriceTicks, Qty, MicroUsd, MicroUsdOf) under the names the
// post-trade modules use. They are the same types as engine::PriceTicks and engine::Qty.
#ifndef CFX_COMMON_UNITS_H_
#define CFX_COMMON_UNITS_H_

#include "cfx/engine/units.h"

namespace cfx::common {

using engine::MicroUsd;
using engine::MicroUsdOf;
using engine::PriceTicks;
using engine::Qty;

}  // namespace cfx::common

#endif  // CFX_COMMON_UNITS_H_
