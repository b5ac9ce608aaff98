// The trade store's background committer (exchange/src/trade_recorder_commit.cc): at a trickle of
// inputs it gathers them into one transaction per kMinCommitInterval instead of one each, and
// a waiter (ExchangeCore::Flush) does not wait for the gap.
#include "cfx/exchange/trade_recorder.h"

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "cfx/storage/kv_store.h"
#include "cfx/trade_store/format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "temp_dir.h"

namespace cfx::exchange {
namespace {

// The order row as nlohmann::json wrote it before OrderRowText was written by hand.
std::string ReferenceOrderRow(const OrderStateView& v, uint64_t end_serial) {
  using json = nlohmann::json;
  json j = {{"oid", v.oid},
            {"acct", v.acct},
            {"cl", v.cl},
            {"sym", v.sym},
            {"side", std::string(engine::ToString(v.side))},
            {"status", std::string(engine::ToString(v.status))},
            {"type", std::string(engine::ToString(v.detail.type))},
            {"tif", std::string(engine::ToString(v.detail.tif))},
            {"px", v.detail.px.value()},
            {"stop_px", v.detail.stop_px.value()},
            {"qty", v.detail.qty.value()},
            {"cum", v.cum.value()},
            {"leaves", v.leaves.value()},
            {"notional", v.notional},
            {"session", v.detail.session}};
  if (v.expired) j["expired"] = true;
  if (end_serial) j["end"] = end_serial;
  if (v.detail.has_amend_terms) {
    j["display"] = v.detail.display.value();
    j["expire"] = v.detail.expire;
    if (v.detail.post_only) j["post_only"] = true;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Differential: random rows, with names of every byte (quotes, controls, DEL, UTF-8 valid
// and not), extreme numbers and every enum value, written the same way both ways.
TEST(TradeRecorderTest, OrderRowTextIsWhatNlohmannJsonWrites) {
  std::mt19937_64 rng(20261202);
  auto pick = [&](uint64_t n) { return static_cast<int64_t>(rng() % n); };
  auto name = [&] {
    std::string s;
    const int len = static_cast<int>(pick(12));
    for (int i = 0; i < len; ++i) {
      switch (pick(6)) {
        case 0: s.push_back(static_cast<char>(pick(256))); break;        // any byte
        case 1: s.append(pick(2) ? "\xc3\xa9" : "\xe2\x82"); break;  // UTF-8, whole or cut
        case 2: s.push_back("\"\\\x01\x7f\n"[pick(5)]); break;
        default: s.push_back(static_cast<char>('!' + pick(94))); break;  // printable
      }
    }
    return s;
  };
  const int64_t extremes[] = {0, -1, 1, INT64_MIN, INT64_MAX, 123456789};
  auto number = [&] { return pick(3) == 0 ? extremes[pick(6)] : static_cast<int64_t>(rng()); };
  for (int i = 0; i < 20000; ++i) {
    OrderStateView v;
    v.oid = rng();
    v.acct = name();
    v.cl = name();
    v.sym = pick(2) ? "GPU-B200-T1-US-2027-01" : name();
    v.side = static_cast<engine::Side>(pick(2));
    v.status = static_cast<engine::OrderStatus>(pick(5));
    v.detail.type = static_cast<engine::OrderType>(pick(4));
    v.detail.tif = static_cast<engine::TimeInForce>(pick(5));
    v.detail.px = engine::PriceTicks(number());
    v.detail.stop_px = engine::PriceTicks(number());
    v.detail.qty = engine::Qty(number());
    v.detail.session = static_cast<uint32_t>(rng());
    v.cum = engine::Qty(number());
    v.leaves = engine::Qty(number());
    v.notional = number();
    v.expired = pick(2) == 0;
    v.detail.has_amend_terms = pick(2) == 0;
    v.detail.display = engine::Qty(number());
    v.detail.expire = number();
    v.detail.post_only = pick(2) == 0;
    const uint64_t end = pick(2) ? 0 : (pick(3) == 0 ? UINT64_MAX : rng());
    ASSERT_EQ(TradeRecorder::OrderRowText(v, end), ReferenceOrderRow(v, end)) << "row " << i;
  }
}

// A damaged row refuses the open with DataLoss naming the file and the key: a position
// missing a field (or of the wrong type) threw nlohmann's type_error out of the start, ending
// `cfx serve` without a word of the file; a last_seq that is no number was read as a smaller
// one (re-deriving inputs the positions already held) or a larger one (skipping some).
TEST(TradeRecorderTest, ADamagedRowRefusesTheOpenNamingTheFileAndTheKey) {
  const std::pair<std::string, std::string> damage[] = {
      {kPositionsTable, R"({"acct":"A1","sym":"S","qty":1,"bought":1})"},  // no "sold"
      {kPositionsTable, R"({"acct":"A1","sym":"S","qty":"1","bought":1,"sold":0})"},
      {kPositionsTable, R"({"acct":"A1","qty":1,"bought":1,"sold":0})"},
      {kPositionsTable, R"({"acct":7,"sym":"S","qty":1,"bought":1,"sold":0})"},
      {kMetaTable, "12x"},
      {kMetaTable, ""}};
  for (const auto& [table, value] : damage) {
    SCOPED_TRACE(value);
    testsupport::TempDir dir("cfx_recorder");
    ASSERT_FALSE(dir.path().empty());
    {
      auto kv = storage::KvStore::Open(dir.path(),
                                       storage::KvOptions{.file = trade_store::kTradeStoreFile});
      ASSERT_TRUE(kv.ok()) << kv.status();
      auto txn = (*kv)->BeginWrite();
      ASSERT_TRUE(txn.ok());
      const std::string key = table == kMetaTable ? "last_seq" : "A1/S";
      ASSERT_TRUE((*txn)->Put(table, key, value).ok());
      ASSERT_TRUE((*txn)->Commit().ok());
    }
    auto recorder = TradeRecorder::Open(dir.path());
    ASSERT_FALSE(recorder.ok());
    EXPECT_TRUE(absl::IsDataLoss(recorder.status())) << recorder.status();
    EXPECT_NE(
        recorder.status().message().find(table == kMetaTable ? "meta/last_seq" : "positions/A1/S"),
        std::string::npos)
        << recorder.status();
  }
}

TEST(TradeRecorderTest, ATrickleOfInputsSharesCommitsAndAWaiterGetsItsCommitAtOnce) {
  testsupport::TempDir dir("cfx_recorder");
  ASSERT_FALSE(dir.path().empty());
  constexpr uint64_t kInputs = 60;
  {
    auto recorder = TradeRecorder::Open(dir.path());
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    // One input a millisecond, each handed over at once, as the publisher does when it has
    // caught up with the journal.
    for (uint64_t seq = 1; seq <= kInputs; ++seq) {
      (*recorder)->EndInput(seq);
      ASSERT_TRUE((*recorder)->CommitInBackground().ok());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE((*recorder)->WaitCommitted(kInputs, std::chrono::seconds(10)));
    // ~60 ms of inputs at one transaction per 10 ms gap: well under one per input (a slow
    // machine only gathers more into each).
    EXPECT_LE((*recorder)->commits(), kInputs / 3);
    EXPECT_GE((*recorder)->commits(), 1u);

    // Right after a commit, a waiter's input is not held back by the gap.
    (*recorder)->EndInput(kInputs + 1);
    ASSERT_TRUE((*recorder)->CommitInBackground().ok());
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE((*recorder)->WaitCommitted(kInputs + 1, std::chrono::seconds(10)));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  }
  auto reopened = TradeRecorder::Open(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->last_seq(), kInputs + 1);
}

// A synchronous Commit (ExchangeCore's Stop, a large backlog) may come while the committer
// waits out its gap with rows in hand: the two never write at once (TSan runs this test), and
// every input ends up written exactly in order.
TEST(TradeRecorderTest, ASynchronousCommitDuringTheGapLeavesOneWriter) {
  testsupport::TempDir dir("cfx_recorder");
  ASSERT_FALSE(dir.path().empty());
  uint64_t seq = 0;
  {
    auto recorder = TradeRecorder::Open(dir.path());
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    for (int round = 0; round < 40; ++round) {
      (*recorder)->EndInput(++seq);
      ASSERT_TRUE((*recorder)->CommitInBackground().ok());  // first one: committed at once
      (*recorder)->EndInput(++seq);
      ASSERT_TRUE((*recorder)->CommitInBackground().ok());  // held by the gap
      (*recorder)->EndInput(++seq);
      ASSERT_TRUE((*recorder)->Commit().ok());  // takes the held rows and its own
      EXPECT_EQ((*recorder)->last_seq(), seq);
    }
    ASSERT_TRUE((*recorder)->WaitCommitted(seq, std::chrono::seconds(10)));
  }
  auto reopened = TradeRecorder::Open(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->last_seq(), seq);
}

// Failed background commits (here a full map) keep their rows for a retry, each later batch
// appended: past TradeRecorder::kMaxHeldRows the store gives up for the run, holding nothing
// and committing nothing more (its last_seq stays before every row dropped, so the next
// start's rebuild from the journal writes them). Until 2026-12-07 every later row was held
// and re-serialised at each retry, without bound.
TEST(TradeRecorderTest, AfterFailedCommitsTheRowsHeldAreBoundedAndTheStoreGivesUp) {
  testsupport::TempDir dir("cfx_recorder");
  ASSERT_FALSE(dir.path().empty());
  constexpr uint64_t kMap = 1 << 20;  // 1 MiB: full after about a hundred 8 KiB rows
  uint64_t committed = 0;
  {
    auto recorder =
        TradeRecorder::Open(dir.path(), kDefaultEndedOrdersKept, common::BusinessCalendar(), kMap);
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    (*recorder)->LimitHeldRows(64);
    const std::string big(8192, 'x');
    bool failed = false;
    uint64_t seq = 0;
    while (seq < 5000 && !(*recorder)->given_up()) {
      ++seq;
      (*recorder)->PutMeta("k" + std::to_string(seq), big);
      (*recorder)->EndInput(seq);
      failed |= !(*recorder)->CommitInBackground().ok();
      (*recorder)->WaitCommitted(seq, std::chrono::seconds(10));
    }
    ASSERT_TRUE((*recorder)->given_up()) << "after " << seq << " inputs";
    EXPECT_LT(seq, 1000u);
    EXPECT_TRUE(failed);
    committed = (*recorder)->last_seq();
    EXPECT_GT(committed, 0u);
    EXPECT_LT(committed, seq);
    // Nothing more is written this run, in the background or by a synchronous Commit.
    (*recorder)->PutMeta("after", "x");
    (*recorder)->EndInput(seq + 1);
    (*recorder)->CommitInBackground().IgnoreError();
    EXPECT_FALSE((*recorder)->Commit().ok());
    EXPECT_EQ((*recorder)->last_seq(), committed);
  }
  auto reopened =
      TradeRecorder::Open(dir.path(), kDefaultEndedOrdersKept, common::BusinessCalendar(), kMap);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->last_seq(), committed);
}

}  // namespace
}  // namespace cfx::exchange
