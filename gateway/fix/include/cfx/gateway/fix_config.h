// Builds the FIX gateway's settings from the exchange's TOML config (SPEC §11).
// C++20 (includes cfx/common/config.h); the gateway itself only sees FixGatewayConfig.
#ifndef CFX_GATEWAY_FIX_CONFIG_H_
#define CFX_GATEWAY_FIX_CONFIG_H_

#include "cfx/common/config.h"
#include "cfx/gateway/fix_gateway.h"

namespace cfx::gateway {

// Sessions, accounts, port, listen address, our CompID and the data dir, copied.
FixGatewayConfig FixGatewayConfigFromExchange(const common::ExchangeConfig& config);

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_FIX_CONFIG_H_
