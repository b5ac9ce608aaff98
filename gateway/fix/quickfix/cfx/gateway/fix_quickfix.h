// The QuickFIX headers cfx uses, in one place, and small field helpers: for the acceptor's
// C++14 object library and for the C++14 initiators (cfx_client's FixClient, the FIX bench,
// the FIX tests). Only translation units compiled as C++14 may include this: Debian's
// QuickFIX headers carry dynamic exception specifications that C++17 rejects.
#ifndef CFX_GATEWAY_FIX_QUICKFIX_H_
#define CFX_GATEWAY_FIX_QUICKFIX_H_

#if __cplusplus >= 201703L
#error "QuickFIX headers need C++14: add this file to the C++14 object library"
#endif

#include "quickfix/Application.h"
#include "quickfix/FileLog.h"
#include "quickfix/FileStore.h"
#include "quickfix/Message.h"
#include "quickfix/Session.h"
#include "quickfix/SessionSettings.h"
#include "quickfix/ThreadedSocketAcceptor.h"
#include "quickfix/ThreadedSocketInitiator.h"

#include "cfx/gateway/order_entry.h"

namespace cfx {
namespace gateway {
namespace internal {

// The value of `tag` in `map` (body, header or group), or false if absent.
inline bool GetField(const FIX::FieldMap& map, int tag, std::string* out) {
  if (!map.isSetField(tag)) return false;
  *out = map.getField(tag);
  return true;
}

inline std::string FieldOr(const FIX::FieldMap& map, int tag, const std::string& dflt = "") {
  return map.isSetField(tag) ? map.getField(tag) : dflt;
}

inline FIX::Message NewMessage(const char* msg_type) {
  FIX::Message m;
  m.getHeader().setField(35, msg_type);
  return m;
}

// The FIX 4.4 codes of the order vocabulary: Side(54), OrdType(40) and TimeInForce(59), as
// the acceptor writes them in ExecutionReports and the initiators in orders.
inline const char* SideCode(Side s) { return s == Side::kSell ? "2" : "1"; }

inline const char* OrdTypeCode(OrdType t) {
  switch (t) {
    case OrdType::kMarket: return "1";
    case OrdType::kLimit: return "2";
    case OrdType::kStop: return "3";
    case OrdType::kStopLimit: return "4";
  }
  return "2";
}

inline const char* TifCode(TimeInForce t) {
  switch (t) {
    case TimeInForce::kDay: return "0";
    case TimeInForce::kGtc: return "1";
    case TimeInForce::kIoc: return "3";
    case TimeInForce::kFok: return "4";
    case TimeInForce::kGtd: return "6";
  }
  return "0";
}

// Current UTC time as a FIX UTCTIMESTAMP with milliseconds.
std::string UtcNowFix();
// A UTCTimestamp with microseconds for `time_us` (µs since the Unix epoch); 0: UtcNowFix().
std::string TransactTimeFix(int64_t time_us);

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_QUICKFIX_H_
