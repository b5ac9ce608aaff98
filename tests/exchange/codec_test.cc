#include "cfx/exchange/engine_codec.h"

#include <string>

#include "gtest/gtest.h"
#include "random_commands.h"

namespace cfx::exchange {
namespace {

std::string Bytes(const engine::Command& c) {
  std::string out;
  EngineCodec().Encode(c, &out);
  return out;
}

void ExpectRoundTrip(const engine::Command& c) {
  const std::string bytes = Bytes(c);
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(bytes, &back).ok()) << DescribeCommand(c);
  EXPECT_EQ(back.index(), c.index());
  EXPECT_EQ(Bytes(back), bytes) << DescribeCommand(c);
  EXPECT_EQ(DescribeCommand(back), DescribeCommand(c));
}

TEST(EngineCodecTest, EveryVariantRoundTrips) {
  engine::NewOrderCmd n;
  n.cl = engine::Name::From("order-1");
  n.acct = engine::Name::From("A1");
  n.sym = engine::Name::From("B200-GOLD-US-202703");
  n.side = engine::Side::kSell;
  n.type = engine::OrderType::kStopLimit;
  n.tif = engine::TimeInForce::kGtd;
  n.px = engine::PriceField::Ticks(engine::PriceTicks(5250));
  n.stop = engine::PriceField{true, false, engine::PriceTicks(5300)};
  n.qty = engine::Qty(10);
  n.has_display = true;
  n.display = engine::Qty(3);
  n.post_only = true;
  n.stp = engine::Name::From("S");
  n.stp_action = engine::StpAction::kCancelBoth;
  n.firm = engine::Name::From("F1");
  n.expire = 123456789;
  n.session = 7;
  engine::ProductCmd p{engine::Name::From("B200-GOLD-US-202703"),
                       engine::PriceField::Ticks(engine::PriceTicks(5000)),
                       engine::Qty(900),
                       5,
                       engine::PriceTicks(40),
                       engine::MicroUsd(123)};
  engine::ReplaceCmd r{engine::Name::From("b"),
                       engine::Name::From("a"),
                       engine::Name::From("A1"),
                       engine::PriceField::Ticks(engine::PriceTicks(1)),
                       true,
                       engine::Qty(4)};
  const std::vector<engine::Command> all = {
      p,
      engine::StateCmd{engine::Name::From("X"), engine::TradingState::kHalted},
      n,
      engine::CancelCmd{engine::Name::From("o1"), engine::Name::From("A1")},
      r,
      engine::MassCancelCmd{engine::Name::From("A1"), engine::Name::From("X"), 3},
      engine::TimeCmd{-5},
      engine::CloseCmd{engine::Name::From("X")},
      engine::FixSessionCmd{42, 17, 100017},
      engine::RiskCmd{1, engine::Name::From("A1"), engine::MicroUsd(5'000'000)},
  };
  ASSERT_EQ(all.size(), std::variant_size_v<engine::Command>);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].index(), i);
    ExpectRoundTrip(all[i]);
  }
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(Bytes(n), &back).ok());
  const auto& m = std::get<engine::NewOrderCmd>(back);
  EXPECT_EQ(m.cl.view(), "order-1");
  EXPECT_FALSE(m.stop.on_tick);
  EXPECT_EQ(m.stop.ticks, engine::PriceTicks(5300));
  EXPECT_EQ(m.expire, 123456789);
  EXPECT_EQ(m.session, 7u);
  EXPECT_EQ(m.stp_action, engine::StpAction::kCancelBoth);
}

// Version 2 added each request's Origin (its FIX session and MsgSeqNum, docs/formats.md);
// a journal written in version 1 still decodes, with no origin, and knows no fix_session.
TEST(EngineCodecTest, RequestsCarryTheirOriginAndVersionOneStillDecodes) {
  engine::CancelCmd x{engine::Name::From("o1"), engine::Name::From("A1")};
  x.origin = {77, 1234};
  ExpectRoundTrip(x);
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(Bytes(x), &back).ok());
  EXPECT_EQ(std::get<engine::CancelCmd>(back).origin.session, 77u);
  EXPECT_EQ(std::get<engine::CancelCmd>(back).origin.msg_seq, 1234u);
  EXPECT_NE(DescribeCommand(back).find("from=77/1234"), std::string::npos) << DescribeCommand(back);

  // Version 1: the same bytes without the 8 origin bytes (nor version 4's empty request id
  // and session).
  std::string v1 = Bytes(x);
  v1[0] = 1;
  v1.resize(v1.size() - 8 - 1 - 4);
  ASSERT_TRUE(EngineCodec().Decode(v1, &back).ok());
  EXPECT_EQ(std::get<engine::CancelCmd>(back).origin.msg_seq, 0u);
  EXPECT_EQ(std::get<engine::CancelCmd>(back).orig.view(), "o1");
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(Bytes(x).replace(0, 1, 1, '\x01'), &back)))
      << "a version 1 payload with origin bytes has trailing bytes";
  std::string fix_v1 = Bytes(engine::FixSessionCmd{1, 2, 3});
  fix_v1[0] = 1;
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(fix_v1, &back)));
}

// Version 3 added whether a session's mass cancel is a cancel-on-disconnect (reason
// disconnect, every order) or the session's own FIX mass cancel (reason mass, its symbol);
// before, every mass cancel naming a session was a disconnect, and still decodes as one.
TEST(EngineCodecTest, ASessionsMassCancelSaysWhetherItIsADisconnect) {
  engine::MassCancelCmd own{engine::Name::From(""), engine::Name::From("X"), 3};
  engine::MassCancelCmd gone = own;
  gone.disconnect = true;
  ExpectRoundTrip(own);
  ExpectRoundTrip(gone);
  EXPECT_NE(Bytes(own), Bytes(gone));
  engine::Command back;
  std::string v2 = Bytes(own);
  v2[0] = 2;
  // No disconnect byte (nor version 4's request id and session, nor version 5's firm).
  v2.resize(v2.size() - 2 - 4 - 1);
  ASSERT_TRUE(EngineCodec().Decode(v2, &back).ok());
  EXPECT_TRUE(std::get<engine::MassCancelCmd>(back).disconnect);
  EXPECT_EQ(std::get<engine::MassCancelCmd>(back).sym.view(), "X");
}

// Version 4 added the request's own id (FIX 11) to a cancel and a mass cancel, and the
// session that sent it to those and a replace: what the exchange answers with, also when it
// reports an outcome again after a restart. A version 3 payload still decodes, without them.
TEST(EngineCodecTest, AnAmendCarriesTheRequestsOwnIdAndSession) {
  engine::CancelCmd x{engine::Name::From("o1"), engine::Name::From("A1")};
  x.req = engine::Name::From("cxl-9");
  x.answer_to = 41;
  engine::MassCancelCmd m{engine::Name::From("A1"), engine::Name::From("X"), 3};
  m.req = engine::Name::From("mass-4");
  m.answer_to = 42;
  engine::ReplaceCmd r{engine::Name::From("b"), engine::Name::From("a"), engine::Name::From("A1")};
  r.answer_to = 43;
  ExpectRoundTrip(x);
  ExpectRoundTrip(m);
  ExpectRoundTrip(r);
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(Bytes(x), &back).ok());
  EXPECT_EQ(std::get<engine::CancelCmd>(back).req.view(), "cxl-9");
  EXPECT_EQ(std::get<engine::CancelCmd>(back).answer_to, 41u);
  EXPECT_NE(DescribeCommand(back).find("req=cxl-9 answer_to=41"), std::string::npos)
      << DescribeCommand(back);
  ASSERT_TRUE(EngineCodec().Decode(Bytes(m), &back).ok());
  EXPECT_EQ(std::get<engine::MassCancelCmd>(back).req.view(), "mass-4");
  EXPECT_EQ(std::get<engine::MassCancelCmd>(back).answer_to, 42u);
  ASSERT_TRUE(EngineCodec().Decode(Bytes(r), &back).ok());
  EXPECT_EQ(std::get<engine::ReplaceCmd>(back).answer_to, 43u);
  // Version 3: no id (a length byte and its bytes) and no session (4 bytes); nor, for the
  // mass cancel, version 5's firm (an empty name: its length byte).
  const std::vector<std::pair<engine::Command, size_t>> added = {
      {x, 1 + 5 + 4}, {m, 1 + 6 + 4 + 1}, {r, 4}};
  for (const auto& [c, extra] : added) {
    std::string v3 = Bytes(c);
    v3[0] = 3;
    v3.resize(v3.size() - extra);
    ASSERT_TRUE(EngineCodec().Decode(v3, &back).ok()) << DescribeCommand(c);
    std::visit(
        [](const auto& d) {
          if constexpr (requires { d.answer_to; }) EXPECT_EQ(d.answer_to, 0u);
          if constexpr (requires { d.req; }) EXPECT_TRUE(d.req.empty());
        },
        back);
    EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(Bytes(c).replace(0, 1, 1, '\x03'), &back)))
        << "a version 3 payload with version 4's bytes has trailing bytes";
  }
}

// Version 5 added the firm a session's own mass cancel is held to (the session's firm now,
// so a session moved to another firm cancels none of its old firm's orders). A version 4
// payload still decodes, with no firm: every order the session entered, as before.
TEST(EngineCodecTest, ASessionsMassCancelCarriesItsFirm) {
  engine::MassCancelCmd m{engine::Name::From(""), engine::Name::From(""), 9};
  m.req = engine::Name::From("q1");
  m.answer_to = 9;
  m.firm = engine::Name::From("ALPHA");
  ExpectRoundTrip(m);
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(Bytes(m), &back).ok());
  EXPECT_EQ(std::get<engine::MassCancelCmd>(back).firm.view(), "ALPHA");
  EXPECT_NE(DescribeCommand(back).find(" firm=ALPHA"), std::string::npos) << DescribeCommand(back);
  std::string v4 = Bytes(m);
  v4[0] = 4;
  v4.resize(v4.size() - 1 - 5);  // the firm: a length byte and 5 bytes
  ASSERT_TRUE(EngineCodec().Decode(v4, &back).ok());
  EXPECT_TRUE(std::get<engine::MassCancelCmd>(back).firm.empty());
  EXPECT_EQ(std::get<engine::MassCancelCmd>(back).req.view(), "q1");
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(Bytes(m).replace(0, 1, 1, '\x04'), &back)))
      << "a version 4 payload with version 5's bytes has trailing bytes";
}

// Version 6 added the cap on an account's open orders to a risk setting; a version 5 one
// decodes with the cap as it is (-1).
TEST(EngineCodecTest, ARiskSettingCarriesTheOpenOrderCap) {
  engine::RiskCmd r;
  r.max_open_orders = 250;
  ExpectRoundTrip(r);
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(Bytes(r), &back).ok());
  EXPECT_EQ(std::get<engine::RiskCmd>(back).max_open_orders, 250);
  EXPECT_NE(DescribeCommand(back).find(" max_open_orders=250"), std::string::npos)
      << DescribeCommand(back);
  std::string v5 = Bytes(r);
  v5[0] = 5;
  v5.resize(v5.size() - 17);  // version 10's STP-group cap, 7's day-close byte and 6's cap
  ASSERT_TRUE(EngineCodec().Decode(v5, &back).ok());
  EXPECT_EQ(std::get<engine::RiskCmd>(back).max_open_orders, -1);
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(Bytes(r).replace(0, 1, 1, '\x05'), &back)))
      << "a version 5 payload with version 7's bytes has trailing bytes";
}

// Version 7: a risk setting says whether day orders expire at the 16:00Z closes; a version 6
// payload decodes as "as it is" (-1), so a journal written before the rule replays as it ran.
TEST(EngineCodecTest, ARiskSettingCarriesTheDayClose) {
  engine::RiskCmd r;
  r.close_day_orders = 1;
  ExpectRoundTrip(r);
  engine::Command back;
  ASSERT_TRUE(EngineCodec().Decode(Bytes(r), &back).ok());
  EXPECT_EQ(std::get<engine::RiskCmd>(back).close_day_orders, 1);
  EXPECT_NE(DescribeCommand(back).find(" close_day_orders=on"), std::string::npos)
      << DescribeCommand(back);
  std::string v6 = Bytes(r);
  v6[0] = 6;
  v6.resize(v6.size() - 9);  // version 10's STP-group cap and 7's day-close byte
  ASSERT_TRUE(EngineCodec().Decode(v6, &back).ok());
  EXPECT_EQ(std::get<engine::RiskCmd>(back).close_day_orders, -1);
  EXPECT_EQ(std::get<engine::RiskCmd>(back).max_open_orders, -1);
}

// Version 8: the day-close rule may be 2, closes at the first input stamped past them. A
// binary of version 7 would read 2 as 1 (closes at the tick) and replay elsewhere than the
// run: the version moved, so it refuses the record instead of diverging. Version 9: it may
// be 3, the engine's clock at each input's stamp too (GTD expiry), which a version 8 binary
// would read as 1; a rule past the ones a record's version knows is damage.
// A risk setting of version 9: version 10's bytes without the STP-group cap at the end.
std::string RiskV9(const engine::RiskCmd& r) {
  std::string bytes = Bytes(r);
  bytes.resize(bytes.size() - 8);
  bytes[0] = 9;
  return bytes;
}

TEST(EngineCodecTest, TheStampRulesAreWrittenAsVersion9AndCheckedAgainstTheVersion) {
  for (const int8_t rule : {int8_t{2}, int8_t{3}}) {
    engine::RiskCmd r;
    r.close_day_orders = rule;
    ExpectRoundTrip(r);
    EXPECT_EQ(Bytes(r)[0], 10);
    engine::Command back;
    ASSERT_TRUE(EngineCodec().Decode(RiskV9(r), &back).ok());
    EXPECT_EQ(std::get<engine::RiskCmd>(back).close_day_orders, rule);
    EXPECT_EQ(std::get<engine::RiskCmd>(back).stp_groups_per_firm, -1) << "before 10: as it is";
    const std::string text = DescribeCommand(back);
    EXPECT_NE(text.find(" close_day_orders=on_at_stamps"), std::string::npos) << text;
    EXPECT_EQ(text.find("on_at_stamps_clock") != std::string::npos, rule == 3) << text;
    std::string v8 = RiskV9(r);
    v8[0] = 8;
    EXPECT_EQ(EngineCodec().Decode(v8, &back).ok(), rule == 2) << int{rule};
    // Version 7 with 2: written by builds of one afternoon before version 8; still read.
    std::string v7 = v8;
    v7[0] = 7;
    EXPECT_EQ(EngineCodec().Decode(v7, &back).ok(), rule == 2) << int{rule};
  }
  engine::RiskCmd bad;
  bad.close_day_orders = 4;
  engine::Command back;
  EXPECT_EQ(EngineCodec().Decode(Bytes(bad), &back).code(), absl::StatusCode::kDataLoss);
}

// The per-firm STP-group cap is a risk setting of version 10 (docs/engine.md, "Names kept"):
// round trip, its text, and a value out of range refused as damage.
TEST(EngineCodecTest, TheStpGroupCapIsWrittenAsVersion10) {
  engine::RiskCmd r;
  r.stp_groups_per_firm = 4096;
  ExpectRoundTrip(r);
  EXPECT_EQ(Bytes(r)[0], 10);
  EXPECT_NE(DescribeCommand(r).find(" stp_groups_per_firm=4096"), std::string::npos)
      << DescribeCommand(r);
  engine::Command back;
  for (const int64_t bad : {int64_t{-2}, int64_t{1} << 40}) {
    engine::RiskCmd b;
    b.stp_groups_per_firm = bad;
    EXPECT_EQ(EngineCodec().Decode(Bytes(b), &back).code(), absl::StatusCode::kDataLoss) << bad;
  }
}

// A contract nothing prices travels as its margin (MatcherOptions::kNoPriceMargin) and reads
// as such in `cfx journal dump`, not as int64's largest number.
TEST(EngineCodecTest, AContractWithNoPriceReadsAsSuch) {
  engine::ProductCmd p;
  p.sym = engine::Name::From("B200-GOLD-US-202703");
  p.initial_margin = MatcherOptions::kNoPriceMargin;
  ExpectRoundTrip(p);
  EXPECT_NE(DescribeCommand(p).find(" im=no_price"), std::string::npos) << DescribeCommand(p);
  p.initial_margin = engine::MicroUsd(1500);
  EXPECT_NE(DescribeCommand(p).find(" im=1500"), std::string::npos) << DescribeCommand(p);
}

TEST(EngineCodecTest, RandomCommandsRoundTrip) {
  testing::RandomCommands gen(7);
  for (int i = 0; i < 20000; ++i) ExpectRoundTrip(gen.Next());
}

TEST(EngineCodecTest, EveryTruncationIsRejected) {
  testing::RandomCommands gen(11);
  for (int i = 0; i < 200; ++i) {
    const std::string bytes = Bytes(gen.Next());
    for (size_t len = 0; len < bytes.size(); ++len) {
      engine::Command c;
      EXPECT_FALSE(EngineCodec().Decode(bytes.substr(0, len), &c).ok()) << len;
    }
  }
}

TEST(EngineCodecTest, MalformedPayloadsAreDataLoss) {
  engine::Command c;
  std::string good = Bytes(engine::CancelCmd{engine::Name::From("o1"), engine::Name::From("A1")});
  std::string bad_version = good;
  bad_version[0] = kEngineCodecVersion + 1;
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(bad_version, &c)));
  std::string bad_tag = good;
  bad_tag[1] = 9;
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(bad_tag, &c)));
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(good + "x", &c)));  // trailing byte
  std::string long_name = good;
  long_name[2] = 33;  // longer than kMaxIdLength
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(long_name, &c)));
  std::string state = Bytes(engine::StateCmd{engine::Name::From("X"), engine::TradingState::kOpen});
  state.back() = 4;  // no such TradingState
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode(state, &c)));
  EXPECT_TRUE(absl::IsDataLoss(EngineCodec().Decode("", &c)));
  // A failed decode leaves the output untouched.
  c = engine::TimeCmd{42};
  EXPECT_FALSE(EngineCodec().Decode(bad_tag, &c).ok());
  EXPECT_EQ(std::get<engine::TimeCmd>(c).ts, 42);
}

}  // namespace
}  // namespace cfx::exchange
