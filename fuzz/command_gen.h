// Engine commands from fuzzer bytes: a small vocabulary of symbols, accounts and ids, so that
// random streams trade, cancel, replace and collide instead of being rejected at once.
#ifndef CFX_FUZZ_COMMAND_GEN_H_
#define CFX_FUZZ_COMMAND_GEN_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <string>

#include "cfx/engine/command.h"

namespace cfx::fuzz {

inline engine::Name PickName(FuzzedDataProvider& in, const char* const* names, int n) {
  return engine::Name::From(names[in.ConsumeIntegralInRange<int>(0, n - 1)]);
}

// REQUIRES: in.remaining_bytes() > 0.
inline engine::Command NextCommand(FuzzedDataProvider& in, engine::Timestamp* clock) {
  static const char* const kSyms[] = {"B200-GOLD-US-202703", "B200-SILV-EU-202704"};
  static const char* const kAccts[] = {"A1", "A2", "B1"};
  static const char* const kIds[] = {"o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"};
  // STP groups (none, the account's, groups of their own) and firms (none: the account's),
  // with the per-firm STP-group cap below as a sequenced risk setting.
  static const char* const kStps[] = {"", "A1", "G1", "G2", "G3"};
  static const char* const kFirms[] = {"", "", "F1", "F2"};
  auto price = [&] {
    engine::PriceField p;
    p.present = in.ConsumeBool();
    p.ticks = engine::PriceTicks(in.ConsumeIntegralInRange<int64_t>(4900, 5100));
    p.on_tick = in.ConsumeIntegralInRange<int>(0, 15) != 0;
    return p;
  };
  switch (in.ConsumeIntegralInRange<int>(0, 10)) {
    case 0: {
      engine::ProductCmd c;
      c.sym = PickName(in, kSyms, 2);
      c.ref = engine::PriceField::Ticks(engine::PriceTicks(5000));
      c.band_percent = in.ConsumeIntegralInRange<int64_t>(0, 20);
      c.max_order_qty = engine::Qty(in.ConsumeIntegralInRange<int64_t>(1, 1000));
      return c;
    }
    case 1: {
      engine::StateCmd c;
      c.sym = PickName(in, kSyms, 2);
      c.state = static_cast<engine::TradingState>(in.ConsumeIntegralInRange<int>(0, 3));
      return c;
    }
    case 2:
    case 3:
    case 4: {
      engine::NewOrderCmd c;
      c.cl = PickName(in, kIds, 8);
      c.acct = PickName(in, kAccts, 3);
      c.sym = PickName(in, kSyms, 2);
      c.side = in.ConsumeBool() ? engine::Side::kBuy : engine::Side::kSell;
      c.type = static_cast<engine::OrderType>(in.ConsumeIntegralInRange<int>(0, 3));
      c.tif = static_cast<engine::TimeInForce>(in.ConsumeIntegralInRange<int>(0, 4));
      c.px = price();
      c.stop = price();
      c.qty = engine::Qty(in.ConsumeIntegralInRange<int64_t>(-1, 50));
      c.has_display = in.ConsumeIntegralInRange<int>(0, 7) == 0;
      c.display = engine::Qty(in.ConsumeIntegralInRange<int64_t>(0, 10));
      c.post_only = in.ConsumeIntegralInRange<int>(0, 7) == 0;
      c.stp_action = static_cast<engine::StpAction>(in.ConsumeIntegralInRange<int>(0, 2));
      c.stp = PickName(in, kStps, 5);
      c.firm = PickName(in, kFirms, 4);
      if (c.tif == engine::TimeInForce::kGtd) c.expire = *clock + in.ConsumeIntegral<uint16_t>();
      c.session = in.ConsumeIntegralInRange<uint32_t>(0, 3);
      return c;
    }
    case 5: {
      engine::CancelCmd c;
      c.orig = PickName(in, kIds, 8);
      c.acct = PickName(in, kAccts, 3);
      return c;
    }
    case 6: {
      engine::ReplaceCmd c;
      c.cl = PickName(in, kIds, 8);
      c.orig = PickName(in, kIds, 8);
      c.acct = PickName(in, kAccts, 3);
      c.px = price();
      c.has_qty = in.ConsumeBool();
      c.qty = engine::Qty(in.ConsumeIntegralInRange<int64_t>(-1, 50));
      return c;
    }
    case 7: {
      engine::MassCancelCmd c;
      c.acct = PickName(in, kAccts, 3);
      if (in.ConsumeBool()) c.sym = PickName(in, kSyms, 2);
      c.session = in.ConsumeIntegralInRange<uint32_t>(0, 3);
      c.disconnect = in.ConsumeBool();  // cancel-on-disconnect, or the session's own
      return c;
    }
    case 8: {
      *clock += in.ConsumeIntegral<uint32_t>();
      return engine::TimeCmd{*clock};
    }
    case 9: {
      engine::RiskCmd c;  // the per-firm STP-group cap: off, or one or two groups a firm
      c.stp_groups_per_firm = in.ConsumeIntegralInRange<int64_t>(0, 2);
      return c;
    }
    default: {
      engine::CloseCmd c;
      c.sym = PickName(in, kSyms, 2);
      return c;
    }
  }
}

}  // namespace cfx::fuzz

#endif  // CFX_FUZZ_COMMAND_GEN_H_
