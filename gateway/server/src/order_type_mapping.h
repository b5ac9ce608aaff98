// The gateway's order vocabulary (order_entry.h) and the engine's, one to one: conversions
// by switch, so a value added on one side without the other fails to compile with
// -Wswitch rather than being cast on a comment's promise.
//
//   engine::NewOrderCmd c;  c.type = internal::ToEngine(order.ord_type);
//   OrdType t = internal::ToGateway(c.type);
#ifndef CFX_GATEWAY_SERVER_SRC_ORDER_TYPE_MAPPING_H_
#define CFX_GATEWAY_SERVER_SRC_ORDER_TYPE_MAPPING_H_

#include <string>

#include "cfx/engine/types.h"
#include "cfx/gateway/order_entry.h"

namespace cfx::gateway::internal {

OrdType ToGateway(engine::OrderType t);
engine::OrderType ToEngine(OrdType t);
TimeInForce ToGateway(engine::TimeInForce t);
engine::TimeInForce ToEngine(TimeInForce t);
Side ToGateway(engine::Side s);
engine::Side ToEngine(Side s);
engine::StpAction ToEngine(StpAction a);

// Whether an order of type `t` carries a limit price / a stop price.
bool HasPrice(engine::OrderType t);
bool HasStop(engine::OrderType t);

std::string Str(const engine::Name& n);

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_SERVER_SRC_ORDER_TYPE_MAPPING_H_
