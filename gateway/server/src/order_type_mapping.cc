#include "order_type_mapping.h"

namespace cfx::gateway::internal {

namespace en = cfx::engine;

OrdType ToGateway(en::OrderType t) {
  switch (t) {
    case en::OrderType::kLimit:
      return OrdType::kLimit;
    case en::OrderType::kMarket:
      return OrdType::kMarket;
    case en::OrderType::kStop:
      return OrdType::kStop;
    case en::OrderType::kStopLimit:
      return OrdType::kStopLimit;
  }
  return OrdType::kLimit;
}

en::OrderType ToEngine(OrdType t) {
  switch (t) {
    case OrdType::kLimit:
      return en::OrderType::kLimit;
    case OrdType::kMarket:
      return en::OrderType::kMarket;
    case OrdType::kStop:
      return en::OrderType::kStop;
    case OrdType::kStopLimit:
      return en::OrderType::kStopLimit;
  }
  return en::OrderType::kLimit;
}

TimeInForce ToGateway(en::TimeInForce t) {
  switch (t) {
    case en::TimeInForce::kDay:
      return TimeInForce::kDay;
    case en::TimeInForce::kGtc:
      return TimeInForce::kGtc;
    case en::TimeInForce::kIoc:
      return TimeInForce::kIoc;
    case en::TimeInForce::kFok:
      return TimeInForce::kFok;
    case en::TimeInForce::kGtd:
      return TimeInForce::kGtd;
  }
  return TimeInForce::kDay;
}

en::TimeInForce ToEngine(TimeInForce t) {
  switch (t) {
    case TimeInForce::kDay:
      return en::TimeInForce::kDay;
    case TimeInForce::kGtc:
      return en::TimeInForce::kGtc;
    case TimeInForce::kIoc:
      return en::TimeInForce::kIoc;
    case TimeInForce::kFok:
      return en::TimeInForce::kFok;
    case TimeInForce::kGtd:
      return en::TimeInForce::kGtd;
  }
  return en::TimeInForce::kDay;
}

Side ToGateway(en::Side s) { return s == en::Side::kBuy ? Side::kBuy : Side::kSell; }
en::Side ToEngine(Side s) { return s == Side::kBuy ? en::Side::kBuy : en::Side::kSell; }

en::StpAction ToEngine(StpAction a) {
  switch (a) {
    case StpAction::kCancelResting:
      return en::StpAction::kCancelResting;
    case StpAction::kCancelAggressor:
      return en::StpAction::kCancelAggressor;
    case StpAction::kCancelBoth:
      return en::StpAction::kCancelBoth;
  }
  return en::StpAction::kCancelResting;
}

bool HasPrice(en::OrderType t) {
  return t == en::OrderType::kLimit || t == en::OrderType::kStopLimit;
}
bool HasStop(en::OrderType t) {
  return t == en::OrderType::kStop || t == en::OrderType::kStopLimit;
}

std::string Str(const en::Name& n) { return std::string(n.view()); }

}  // namespace cfx::gateway::internal
