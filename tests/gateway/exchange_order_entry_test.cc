// ExchangeOrderEntry over a real exchange core whose order path is held full: what the FIX
// gateway's calls do then. The core delivers outcomes on its matcher thread, so a listener
// that blocks holds the matcher, and with rings of two slots the order path is full after a
// handful of inputs.
#include "cfx/gateway/exchange_order_entry.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cfx/common/config.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/journal/replication_log.h"
#include "gtest/gtest.h"
#include "order_entry_test_util.h"
#include "temp_dir.h"
#include "wait_for.h"

namespace cfx::gateway {
namespace {

using namespace std::chrono_literals;

using order_entry_test::kMarch2027;
using order_entry_test::kNsPerSec;
using order_entry_test::Report;

common::ExchangeConfig Config() {
  return order_entry_test::OneGradeConfig({{"A0", "F1"}, {"A1", "F1"}});
}

// Holds the matcher thread (the core delivers on it) while closed.
class Gate : public exchange::OutcomeListener {
 public:
  void OnOutcome(uint64_t, uint64_t, const exchange::Outcome&) override {
    while (closed_.load(std::memory_order_acquire)) std::this_thread::sleep_for(1ms);
  }
  void Close() { closed_.store(true, std::memory_order_release); }
  void Open() { closed_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> closed_{false};
};

// What the gateway would send; book updates as the bids they show, with how many reports
// had gone out before each.
class Reports : public order_entry_test::Recorder {
 public:
  struct Book {
    std::string bids;  // "4990,4980,"
    size_t reports_before = 0;
  };
  void OnBookUpdate(const BookUpdate& u) override {
    Book b;
    for (const BookLevel& l : u.bids) b.bids += std::to_string(l.price_ticks) + ",";
    b.reports_before = Count();
    std::lock_guard<std::mutex> lock(books_mu_);
    books_.push_back(std::move(b));
  }
  std::vector<Book> Books() {
    std::lock_guard<std::mutex> lock(books_mu_);
    return books_;
  }

 private:
  std::mutex books_mu_;
  std::vector<Book> books_;
};

NewOrder Order(const std::string& session, const std::string& account, const std::string& id,
               int64_t price_ticks) {
  return order_entry_test::LimitOrder(session, account, "F1", id, Side::kBuy, price_ticks, 1,
                                      TimeInForce::kDay);
}

// A replicated log that takes every batch and holds nothing to read: enough for a core
// promoted to primary, which is what makes ExchangeOrderEntry record FIX sequence numbers.
class AcceptingLog : public journal::ReplicationLog {
 public:
  absl::Status Append(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                      const journal::StateCheckpoint&) override {
    end_.store(first_seq + payloads.size(), std::memory_order_release);
    return absl::OkStatus();
  }
  absl::Status Read(uint64_t, int64_t timeout_ms, journal::ReplicatedBatch*) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(timeout_ms, 5)));
    return absl::DeadlineExceededError("nothing appended by another writer");
  }
  absl::StatusOr<uint64_t> EndSeq() override { return end_.load(std::memory_order_acquire); }

 private:
  std::atomic<uint64_t> end_{1};
};

template <typename Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit = 10s) {
  return testsupport::WaitFor(pred, limit);
}

// A real core (rings of two slots, one input a batch) with ExchangeOrderEntry on it for
// sessions S1 and S2, and the Gate on its matcher.
class ExchangeOrderEntryTest : public ::testing::Test {
 protected:
  // `replicated`: the core runs on an AcceptingLog, promoted to primary. `batch`: rings of
  // that many slots and inputs a batch.
  // `stream_reports`: reports follow the stream's mark (a replicated leader's start), held
  // back until the test calls StartReports.
  void Start(bool replicated, size_t batch = 1, bool stream_reports = false) {
    exchange::ExchangeOptions options;
    options.data_dir = dir_.path();
    options.clock = exchange::ClockMode::kManual;
    options.start_time = kMarch2027 + 9 * 3600 * kNsPerSec;
    options.ring_capacity = std::max<size_t>(2, batch);
    options.max_batch = batch;
    if (replicated) options.replication = &log_;
    core_ = std::make_unique<exchange::ExchangeCore>(Config(), options);
    core_->AddListener(&gate_);
    entry_ =
        std::make_unique<ExchangeOrderEntry>(core_.get(), std::vector<std::string>{"S1", "S2"});
    entry_->SetListener(&reports_);
    ASSERT_TRUE(core_->Start().ok());
    if (replicated) ASSERT_TRUE(core_->Promote(10000).ok());
    ASSERT_TRUE(core_->Flush().ok());
    if (stream_reports) entry_->SetReportsFromStream(core_->Stats().next_seq - 1);
    ASSERT_TRUE(entry_->Start().ok());
  }
  void TearDown() override {
    gate_.Open();
    if (entry_) entry_->Stop();
    if (core_) EXPECT_TRUE(core_->Stop().ok());
  }
  // Holds the matcher and fills the path from S2 until an order is refused.
  void FillThePath() {
    gate_.Close();
    int sent = 0;
    ASSERT_TRUE(WaitFor([&] {
      const std::string id = "fill-" + std::to_string(sent++);
      entry_->Submit(Order("S2", "A1", id, 4980));
      return WaitFor([&] { return !reports_.Last(id).empty(); }, 50ms) &&
             reports_.Last(id) == "rejected throttled";
    }));
  }

  testsupport::TempDir dir_{"cfx_order_entry_test"};
  AcceptingLog log_;
  Gate gate_;
  Reports reports_;
  std::unique_ptr<exchange::ExchangeCore> core_;
  std::unique_ptr<ExchangeOrderEntry> entry_;
};

// A disconnect while the order path is full (QuickFIX calls it under the session's lock,
// which the matcher needs to send that session a report): it returns at once instead of
// holding the lock for a second of retries; the cancel still goes in once the path moves,
// and the session's new orders are refused until it has.
TEST_F(ExchangeOrderEntryTest, CancelOnDisconnectThroughAFullOrderPathNeitherWaitsNorIsLost) {
  Start(/*replicated=*/false);
  entry_->Submit(Order("S1", "A0", "rest-1", 4990));
  ASSERT_TRUE(WaitFor([&] { return reports_.Last("rest-1") == "accepted"; }))
      << reports_.Last("rest-1");
  FillThePath();

  const auto t0 = std::chrono::steady_clock::now();
  entry_->Disconnected({"S1"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 200ms) << "the disconnect waited";

  // Until the cancel is in, the session's new orders are refused.
  entry_->Submit(Order("S1", "A0", "after-1", 4991));
  EXPECT_TRUE(WaitFor([&] { return reports_.Last("after-1") == "rejected throttled"; }))
      << reports_.Last("after-1");

  gate_.Open();  // within the worker's second of retries
  EXPECT_TRUE(WaitFor([&] { return reports_.Last("rest-1") == "canceled disconnect"; }))
      << reports_.Text();
  // Once it is in, the session trades again.
  ASSERT_TRUE(core_->Flush().ok());
  EXPECT_TRUE(WaitFor([&] {
    entry_->Submit(Order("S1", "A0", "after-2", 4992));
    return WaitFor([&] { return !reports_.Last("after-2").empty(); }, 500ms) &&
           reports_.Last("after-2") == "accepted";
  })) << reports_.Last("after-2");
}

// A clean stop: the gateway logs its sessions out, and a cancel-on-disconnect a full path
// postponed is offered again, waiting for room, before the core stops (`cfx serve`'s Stop
// calls FlushDisconnectCancels between them). Until 2026-12-07 its retry came only at the
// next end of a delivery burst, after the core had stopped, and was dropped: the session's
// orders outlived the stop.
TEST_F(ExchangeOrderEntryTest, AStopOffersAPostponedCancelOnDisconnectBeforeTheCoreStops) {
  Start(/*replicated=*/false);
  entry_->Submit(Order("S1", "A0", "rest-1", 4990));
  ASSERT_TRUE(WaitFor([&] { return reports_.Last("rest-1") == "accepted"; }))
      << reports_.Last("rest-1");
  FillThePath();
  entry_->Disconnected({"S1"});  // postponed: the path is full
  std::thread opener([&] {
    std::this_thread::sleep_for(100ms);
    gate_.Open();  // the matcher moves again while the stop waits
  });
  EXPECT_EQ(entry_->FlushDisconnectCancels(std::chrono::seconds(10)), 0u);
  opener.join();
  ASSERT_TRUE(core_->Flush().ok());
  EXPECT_TRUE(WaitFor([&] { return reports_.Last("rest-1") == "canceled disconnect"; }))
      << reports_.Text();
  // Nothing waits: a second flush returns at once.
  EXPECT_EQ(entry_->FlushDisconnectCancels(std::chrono::milliseconds(0)), 0u);
}

// The gateway records a session's sequence numbers from QuickFIX's toApp, on the sending
// thread, which for reports is the matcher's: with the order path full, RecordSequences
// tries once and returns false at once (the next message sent tries again) instead of
// retrying on the very thread that would empty the ring.
TEST_F(ExchangeOrderEntryTest, RecordingSequencesThroughAFullOrderPathTriesOnce) {
  Start(/*replicated=*/true);
  ASSERT_TRUE(core_->replicated());
  const SessionSequences mark{"S1", 7, 1000};
  ASSERT_TRUE(WaitFor([&] { return entry_->RecordSequences(mark); }));
  FillThePath();

  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(entry_->RecordSequences(mark));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 100ms) << "it retried on a full ring";

  gate_.Open();
  EXPECT_TRUE(WaitFor([&] { return entry_->RecordSequences(mark); }));
  ASSERT_TRUE(core_->Flush().ok());
  bool found = false;
  for (const SessionSequences& s : entry_->ResumeSequences()) {
    if (s.session != "S1") continue;
    found = true;
    EXPECT_EQ(s.next_target, 7u);
    EXPECT_EQ(s.sender_limit, 1000u);
  }
  EXPECT_TRUE(found);
}

// The matcher applies a run of waiting inputs, publishing each book it changes, before it
// delivers their outcomes: at an input's ack the published book can already show later
// inputs. It is handed to market data at the ack of the input it shows, so no subscriber sees
// a level leave before the report of the input that took it out. Until 2026-12-07 the ack of
// `y` published the book after the cancel of `x` (no 4980 bid) before x's cancel report
// (a review).
TEST_F(ExchangeOrderEntryTest, ABookIsPublishedAtTheAckOfTheInputItShows) {
  Start(/*replicated=*/false, /*batch=*/8);
  gate_.Close();  // x's delivery holds the order path: y and the cancel of x wait, then go
                  // in one batch, applied together before their outcomes are delivered
  entry_->Submit(Order("S1", "A0", "x", 4980));
  std::this_thread::sleep_for(100ms);  // x applied, its delivery held
  entry_->Submit(Order("S2", "A1", "y", 4990));
  CancelOrder cancel;
  cancel.session = "S1";
  cancel.account = "A0";
  cancel.cl_ord_id = "x-cancel";
  cancel.orig_cl_ord_id = "x";
  cancel.symbol = order_entry_test::kSymbol;
  entry_->Cancel(cancel);
  std::this_thread::sleep_for(100ms);  // both sequenced and waiting for the matcher
  gate_.Open();
  ASSERT_TRUE(WaitFor([&] { return reports_.Last("x-cancel") == "canceled user"; }))
      << reports_.Text();
  EXPECT_GE(core_->Stats().max_batch, 2u) << "y and the cancel were not one batch: nothing tested";
  ASSERT_TRUE(WaitFor([&] {
    const std::vector<Reports::Book> books = reports_.Books();
    return !books.empty() && books.back().bids == "4990,";
  })) << reports_.Text();
  const std::vector<Report> all = reports_.All();
  size_t accepted_at = all.size(), canceled_at = all.size();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].kind == "accepted" && all[i].cl == "x") accepted_at = i;
    if (all[i].kind == "canceled" && all[i].cl == "x-cancel") canceled_at = i;
  }
  ASSERT_LT(canceled_at, all.size()) << reports_.Text();
  for (const Reports::Book& b : reports_.Books()) {
    if (b.reports_before <= accepted_at) continue;           // before x was in the book
    if (b.bids.find("4980") != std::string::npos) continue;  // x still shown
    EXPECT_GT(b.reports_before, canceled_at)
        << "the book without x went out before x's cancel "
        << "report: " << b.bids << " after " << b.reports_before << " reports; " << reports_.Text();
  }
}

// A node taking over resumes each session at the limit the stream holds, and first sequences
// a reserve kSenderReserve past it (waited for): a node that takes over from it then never
// sends those numbers again. Until 2026-12-07 the reserve came with the first Logon, one try
// on the ring, and a node that died before it was sequenced left the next one resuming at
// the same limit (a review).
TEST_F(ExchangeOrderEntryTest, ATakeoverReservesPastTheLimitItResumesAt) {
  Start(/*replicated=*/true);
  ASSERT_TRUE(entry_->RecordSequences({"S1", 7, 250}));
  ASSERT_TRUE(core_->Flush().ok());
  const std::vector<SessionSequences> resume = entry_->ResumeSequences();
  ASSERT_EQ(resume.size(), 1u);
  EXPECT_EQ(resume[0].sender_limit, 250u);
  ASSERT_TRUE(entry_->ReserveSenderSequences(resume).ok());
  const std::vector<SessionSequences> after = entry_->ResumeSequences();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].sender_limit, 250u + kSenderReserve);
  EXPECT_EQ(after[0].next_target, 7u);
}

// docs/replication.md, "FIX sessions": a request refused before it became an input (here a
// symbol no contract can have) is recorded in the stream (a `fix_session` mark: the session
// expects the MsgSeqNum after it) before its refusal goes out, so a node taking over never
// processes the client's resend of it (43=Y) as a new request. Until 2026-12-07 the
// refusal went out at once and the stream kept no trace of the request (a review). The
// matcher is held on an earlier order's report: the refusal waits for it.
TEST_F(ExchangeOrderEntryTest, AReplicatedRefusalGoesOutAfterTheStreamRecordsTheRequest) {
  Start(/*replicated=*/true);
  gate_.Close();
  entry_->Submit(Order("S2", "A1", "held", 4980));  // its accepted report holds the matcher
  NewOrder refused = Order("S1", "A0", "refused", 4990);
  refused.symbol = std::string(40, 'Z');  // longer than any listed symbol: refused here
  refused.msg_seq = 9;
  entry_->Submit(refused);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(reports_.Last("refused"), "") << "answered before the stream recorded it";
  gate_.Open();
  ASSERT_TRUE(WaitFor([&] { return reports_.Last("refused") == "rejected unknown_symbol"; }))
      << reports_.Text();
  bool found = false;
  for (const SessionSequences& s : entry_->ResumeSequences()) {
    if (s.session != "S1") continue;
    found = true;
    EXPECT_EQ(s.next_target, 10u);
  }
  EXPECT_TRUE(found) << "the refused request left no trace in the stream";
}

// A refusal recorded while outcomes are held back (the FIX port opens before the reports
// that a failover kept from going out are made again): its mark has no outcome to report
// again, so its answer waits for StartReports and goes out then. Until 2026-12-07 (the day
// refusals were recorded at all) such an answer was dropped with the held outcomes.
TEST_F(ExchangeOrderEntryTest, ARefusalRecordedBeforeReportsStartIsAnsweredWhenTheyDo) {
  Start(/*replicated=*/true, /*batch=*/1, /*stream_reports=*/true);
  NewOrder refused = Order("S1", "A0", "refused", 4990);
  refused.symbol = std::string(40, 'Z');
  refused.msg_seq = 9;
  entry_->Submit(refused);
  ASSERT_TRUE(core_->Flush().ok());  // the mark is acknowledged, its outcome held back
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(reports_.Last("refused"), "") << "answered before the reports started";
  ASSERT_TRUE(entry_->StartReports().ok());
  EXPECT_TRUE(WaitFor([&] { return reports_.Last("refused") == "rejected unknown_symbol"; }))
      << reports_.Text();
}

// One node keeps no sessions in its stream (QuickFIX's store does): a refusal goes out at
// once, whatever the matcher is doing.
TEST_F(ExchangeOrderEntryTest, OneNodesRefusalGoesOutAtOnce) {
  Start(/*replicated=*/false);
  gate_.Close();
  entry_->Submit(Order("S2", "A1", "held", 4980));
  NewOrder refused = Order("S1", "A0", "refused", 4990);
  refused.symbol = std::string(40, 'Z');
  refused.msg_seq = 9;
  entry_->Submit(refused);
  EXPECT_TRUE(WaitFor([&] { return reports_.Last("refused") == "rejected unknown_symbol"; }))
      << reports_.Text();
  EXPECT_TRUE(entry_->ResumeSequences().empty());
}

}  // namespace
}  // namespace cfx::gateway
