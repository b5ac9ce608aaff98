// The reports a crash kept from going out (docs/durability.md): ExchangeOrderEntry over a
// real, journaled exchange core, restarted on the same data dir with its watermark file
// (`fix/reported`) behind what was reported. The restart reports the outcomes of the inputs
// after the watermark again, marked PossResend, with the ExecIDs, ids and sessions the first
// run gave them; nothing before the watermark comes again.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/gateway/exchange_order_entry.h"
#include "cfx/gateway/execid_generation.h"
#include "gtest/gtest.h"
#include "order_entry_test_util.h"
#include "report_watermark.h"
#include "temp_dir.h"
#include "wait_for.h"

namespace cfx::gateway::reports_test {  // named: the unity build joins test files
namespace {

using namespace std::chrono_literals;

using order_entry_test::kMarch2027;
using order_entry_test::kNsPerSec;
using order_entry_test::kSymbol;

using order_entry_test::Recorder;
using order_entry_test::Report;

NewOrder Order(const std::string& session, const std::string& account, const std::string& firm,
               const std::string& id, Side side, int64_t price_ticks, int64_t qty) {
  return order_entry_test::LimitOrder(session, account, firm, id, side, price_ticks, qty,
                                      TimeInForce::kGtc);
}

// A replace, by S1 in A1, of `orig` (now `cl`) in kSymbol; a term left at 0 is kept.
ReplaceOrder Amend(const std::string& cl, const std::string& orig, int64_t price_ticks,
                   int64_t qty) {
  ReplaceOrder r;
  r.session = "S1";
  r.account = "A1";
  r.cl_ord_id = cl;
  r.orig_cl_ord_id = orig;
  r.symbol = kSymbol;
  r.has_price = price_ticks != 0;
  r.price_ticks = price_ticks;
  r.has_qty = qty != 0;
  r.qty = qty;
  return r;
}

// The input seq an ExecID "<seq>-<n>" (or "<seq>.<generation>-<n>") names.
uint64_t SeqOf(const std::string& exec_id) {
  uint64_t seq = 0;
  EXPECT_TRUE(absl::SimpleAtoi(exec_id.substr(0, exec_id.find_first_of(".-")), &seq)) << exec_id;
  return seq;
}

// One run of the exchange on the data dir: a journaled core (a snapshot every 3 inputs, so
// the replay must pick one at or before the watermark) with ExchangeOrderEntry for S1 (F1)
// and S2 (F2) reporting to a Recorder.
class ExchangeRun {
 public:
  // `stream`: as a replicated leader, the mark in the stream instead of the file.
  explicit ExchangeRun(const std::string& dir, bool stream = false) {
    exchange::ExchangeOptions options;
    options.data_dir = dir;
    options.clock = exchange::ClockMode::kManual;
    options.start_time = kMarch2027 + 9 * 3600 * kNsPerSec;
    options.snapshot_every = 3;
    core = std::make_unique<exchange::ExchangeCore>(
        order_entry_test::OneGradeConfig({{"A1", "F1"}, {"A2", "F2"}}), options);
    entry = std::make_unique<ExchangeOrderEntry>(core.get(), std::vector<std::string>{"S1", "S2"});
    entry->SetListener(&reports);
    auto r = core->Start();
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return;
    recovered_last = r->next_seq - 1;
    EXPECT_TRUE(core->Flush().ok());
    if (stream) {
      entry->SetReportsFromStream(recovered_last);
    } else {
      entry->SetReportedFile(dir + "/reported", recovered_last);
    }
    EXPECT_TRUE(entry->Start().ok());
  }
  ~ExchangeRun() {
    entry->Stop();
    EXPECT_TRUE(core->Stop().ok());
  }
  // Waits until `n` reports came, the core published everything offered and the listener
  // went idle after the last report (so StopReports would write its input).
  void Settle(size_t n) {
    EXPECT_TRUE(core->Flush().ok());
    EXPECT_TRUE(testsupport::WaitFor([&] { return reports.Count() >= n; }, 10s))
        << reports.Count() << " of " << n;
    uint64_t last = 0;
    for (const Report& r : reports.All()) {
      if (!r.exec_id.empty()) last = std::max(last, SeqOf(r.exec_id));
    }
    EXPECT_TRUE(testsupport::WaitFor([&] { return entry->ReportedThrough() >= last; }, 10s))
        << entry->ReportedThrough() << " < " << last;
  }

  Recorder reports;
  std::unique_ptr<exchange::ExchangeCore> core;
  std::unique_ptr<ExchangeOrderEntry> entry;
  uint64_t recovered_last = 0;
};

// Orders, a trade (two fills), a replace, a cancel, a refused cancel and a mass cancel: one
// of each kind of answer.
void Trade(ExchangeRun& run) {
  ExchangeOrderEntry& e = *run.entry;
  e.Submit(Order("S1", "A1", "F1", "b-1", Side::kBuy, 4990, 5));
  e.Submit(Order("S1", "A1", "F1", "b-2", Side::kBuy, 4980, 5));
  e.Submit(Order("S2", "A2", "F2", "s-1", Side::kSell, 4990, 2));
  e.Replace(Amend("b-2r", "b-2", 4985, 6));
  e.Cancel({"S1", 0, "A1", "c-1", "b-1", kSymbol});
  e.Cancel({"S1", 0, "A1", "c-2", "gone", kSymbol});
  e.Submit(Order("S2", "A2", "F2", "s-2", Side::kSell, 5010, 1));
  e.Submit(Order("S2", "A2", "F2", "s-3", Side::kSell, 5020, 1));
  e.MassCancelOrders({"S2", 0, "m-1", "", kSymbol});
  // accepted b-1, b-2, s-1; two fills; replaced b-2r; canceled b-1 (c-1); refused c-2;
  // accepted s-2, s-3; canceled s-2, s-3 (mass); the mass result.
  run.Settle(13);
}

TEST(ExchangeOrderEntryReportsTest, AfterTheWatermarkReportsComeAgainAsTheyWereMarkedPossResend) {
  testsupport::TempDir dir{"cfx_reports_test"};
  std::vector<Report> first;
  {
    ExchangeRun run(dir.path());
    ASSERT_TRUE(run.entry->StartReports().ok());
    Trade(run);
    first = run.reports.All();
  }
  ASSERT_EQ(first.size(), 13u);
  for (const Report& r : first) {
    EXPECT_FALSE(r.poss_resend) << r.Key();
    if (r.kind != "cancel_rejected" && r.kind != "mass") {
      EXPECT_TRUE(r.exec_id.find('-') != std::string::npos) << r.Key();
    }
  }
  // Every ExecID is unique, and a cancel answers its request.
  std::vector<std::string> ids;
  for (const Report& r : first) {
    if (!r.exec_id.empty()) ids.push_back(r.exec_id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());

  // A crash left the watermark before the input of the sell that traded: its reports and
  // those after it went out or not; the restart reports them again.
  uint64_t resent_from = 0;
  for (const Report& r : first) {
    if (r.kind == "accepted" && r.cl == "s-1") resent_from = SeqOf(r.exec_id);
  }
  ASSERT_GT(resent_from, 0u);
  {
    auto w = internal::ReportWatermark::Open(dir.path() + "/reported");
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE((*w)->found().has_value());
    EXPECT_GE(*(*w)->found(), resent_from);
    ASSERT_TRUE((*w)->Write(resent_from - 1).ok());
  }
  ExchangeRun again(dir.path());
  // The start hands market data the recovered book's last trade once (a snapshot's last
  // trade, not a print: the gateway's market data has no subscriber yet).
  const int recovered_trades = again.reports.public_trades.load();
  EXPECT_EQ(recovered_trades, 1);
  ASSERT_TRUE(again.entry->StartReports().ok());
  // Reports come in input order; the refused cancel and the mass result, which carry no
  // ExecID, come after the sell.
  auto from = std::find_if(first.begin(), first.end(), [&](const Report& r) {
    return !r.exec_id.empty() && SeqOf(r.exec_id) >= resent_from;
  });
  ASSERT_EQ(from->cl, "s-1");
  const std::vector<Report> expected(from, first.end());
  std::vector<Report> second = again.reports.All();
  ASSERT_EQ(second.size(), expected.size());
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i].Key(), expected[i].Key()) << i;
    EXPECT_TRUE(second[i].poss_resend) << second[i].Key();
  }
  EXPECT_EQ(again.reports.public_trades.load(), recovered_trades)
      << "the reports sent again send no market data again";

  // Live from here: not marked, numbered after everything recovered.
  again.entry->Submit(Order("S1", "A1", "F1", "b-3", Side::kBuy, 4970, 1));
  again.Settle(second.size() + 1);
  const Report live = again.reports.All().back();
  EXPECT_EQ(live.cl, "b-3");
  EXPECT_FALSE(live.poss_resend);
  EXPECT_GT(SeqOf(live.exec_id), again.recovered_last);
}

// SPEC §5: a report carries the exchange stamp of the input that caused it. A mass cancel's
// result (`r`, TransactTime 60) has its request's, as its cancels do, also when it canceled
// nothing and so has no outcome to take it from (until 2026-12-05 it then carried the time
// it was sent); reported again after a restart, it keeps it.
TEST(ExchangeOrderEntryReportsTest,
     AMassCancelsResultCarriesItsRequestsTimeAlsoWhenNothingCanceled) {
  testsupport::TempDir dir{"cfx_reports_mass_time_test"};
  const int64_t t1 = kMarch2027 + 10 * 3600 * kNsPerSec;
  const int64_t t2 = t1 + 7 * kNsPerSec + 123'456'000;
  std::vector<Report> first;
  {
    ExchangeRun run(dir.path());
    ASSERT_TRUE(run.entry->StartReports().ok());
    ExchangeOrderEntry& e = *run.entry;
    ASSERT_EQ(run.core->AdvanceTime(t1), exchange::OfferResult::kAccepted);
    e.MassCancelOrders({"S1", 0, "m-0", "A1", kSymbol});  // nothing to cancel
    e.Submit(Order("S1", "A1", "F1", "b-1", Side::kBuy, 4990, 5));
    ASSERT_EQ(run.core->AdvanceTime(t2), exchange::OfferResult::kAccepted);
    e.MassCancelOrders({"S1", 0, "m-1", "A1", kSymbol});  // cancels b-1
    run.Settle(4);
    first = run.reports.All();
  }
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].kind + " " + first[0].cl + " " + first[0].reason, "mass m-0 0");
  EXPECT_EQ(first[0].time_us, t1 / 1000);
  EXPECT_EQ(first[1].kind + " " + first[1].cl, "accepted b-1");
  EXPECT_EQ(first[1].time_us, t1 / 1000);
  EXPECT_EQ(first[2].kind, "canceled");
  EXPECT_EQ(first[2].time_us, t2 / 1000);
  EXPECT_EQ(first[3].kind + " " + first[3].cl + " " + first[3].reason, "mass m-1 1");
  EXPECT_EQ(first[3].time_us, t2 / 1000);
  {  // a crash kept every report from the store: the watermark before m-0
    auto w = internal::ReportWatermark::Open(dir.path() + "/reported");
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE((*w)->Write(SeqOf(first[1].exec_id) - 2).ok());
  }
  ExchangeRun again(dir.path());
  ASSERT_TRUE(again.entry->StartReports().ok());
  const std::vector<Report> second = again.reports.All();
  ASSERT_EQ(second.size(), first.size());
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i].Key(), first[i].Key()) << i;
    EXPECT_EQ(second[i].time_us, first[i].time_us) << second[i].Key();
    EXPECT_TRUE(second[i].poss_resend) << second[i].Key();
  }
}

// A run on `dir` that takes one order (b-1) and stops: its input's seq (the journal's last),
// its ExecID in *id.
uint64_t RunOneOrder(const std::string& dir, std::string* id = nullptr) {
  ExchangeRun run(dir);
  EXPECT_TRUE(run.entry->StartReports().ok());
  run.entry->Submit(Order("S1", "A1", "F1", "b-1", Side::kBuy, 4990, 5));
  run.Settle(1);
  const std::string exec_id = run.reports.Count() > 0 ? run.reports.All().at(0).exec_id : "";
  if (id != nullptr) *id = exec_id;
  return exec_id.empty() ? 0 : SeqOf(exec_id);
}

// After an operator cut the journal's tail, the watermark names inputs past the journal's
// end: their reports went out, and the inputs sequenced now reuse their seqs. Those inputs'
// ExecIDs take a new generation (`<seq>.1-<n>`), recorded on the disk, so none repeats an
// ExecID a client has seen; a later restart keeps the generation, and a report sent again
// has the ExecID it had. Before, the new inputs' ExecIDs were the cut ones'.
TEST(ExchangeOrderEntryReportsTest, AfterTheJournalsTailWasCutNewInputsTakeANewExecIdGeneration) {
  testsupport::TempDir dir{"cfx_reports_cut_test"};
  const std::string reported = dir.path() + "/reported";
  std::string first_id;
  const uint64_t last = RunOneOrder(dir.path(), &first_id);
  EXPECT_EQ(first_id.find('.'), std::string::npos) << first_id;  // no cut, no generation
  EXPECT_FALSE(std::filesystem::exists(reported + ".generation"));
  {  // as after the cut: reports went out for inputs the journal no longer holds
    auto w = internal::ReportWatermark::Open(reported);
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE((*w)->Write(last + 5).ok());
  }
  std::string cut_id;
  {
    ExchangeRun run(dir.path());
    ASSERT_EQ(run.recovered_last, last);
    ASSERT_TRUE(run.entry->StartReports().ok());
    run.entry->Submit(Order("S1", "A1", "F1", "b-2", Side::kBuy, 4980, 5));
    run.Settle(1);
    ASSERT_EQ(run.reports.Count(), 1u);
    cut_id = run.reports.All().at(0).exec_id;
    // A seq the cut reused (the start's own inputs come first), in generation 1.
    EXPECT_GT(SeqOf(cut_id), last);
    EXPECT_LE(SeqOf(cut_id), last + 5);
    EXPECT_EQ(cut_id, absl::StrCat(SeqOf(cut_id), ".1-0"));
  }
  auto generation = ReadExecIdGeneration(reported + ".generation");
  ASSERT_TRUE(generation.ok()) << generation.status();
  EXPECT_EQ(generation->generation, 1u);
  EXPECT_EQ(generation->from, last + 1);
  {  // a crash kept b-2's report from the store: the watermark before it
    auto w = internal::ReportWatermark::Open(reported);
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE((*w)->Write(last).ok());
  }
  {
    ExchangeRun run(dir.path());
    ASSERT_TRUE(run.entry->StartReports().ok());
    run.entry->Submit(Order("S1", "A1", "F1", "b-3", Side::kBuy, 4970, 5));
    run.Settle(2);
    const std::vector<Report> all = run.reports.All();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].cl, "b-2");
    EXPECT_TRUE(all[0].poss_resend);
    EXPECT_EQ(all[0].exec_id, cut_id) << "a report sent again changed its ExecID";
    EXPECT_EQ(all[1].cl, "b-3");
    EXPECT_GT(SeqOf(all[1].exec_id), SeqOf(cut_id));
    EXPECT_EQ(all[1].exec_id, absl::StrCat(SeqOf(all[1].exec_id), ".1-0"));
  }
  // A damaged generation file stops the start, naming it: a guess would give wrong ExecIDs.
  std::ofstream(reported + ".generation", std::ios::trunc) << "cfx-execid-generation x\n";
  {
    ExchangeRun run(dir.path());
    absl::Status s = run.entry->StartReports();
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_NE(s.message().find(reported + ".generation"), std::string::npos) << s;
  }
}

// `cfx journal verify --truncate-corrupt-tail` records its cut itself; the start that then
// finds the watermark past the journal's end does not count the same cut again.
TEST(ExchangeOrderEntryReportsTest, ACutTheCommandRecordedIsNotCountedAgainAtTheStart) {
  testsupport::TempDir dir{"cfx_reports_cut_test"};
  const std::string reported = dir.path() + "/reported";
  const uint64_t last = RunOneOrder(dir.path());
  {
    auto w = internal::ReportWatermark::Open(reported);
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE((*w)->Write(last + 5).ok());
  }
  ASSERT_TRUE(WriteExecIdGeneration(reported + ".generation", {1, last + 1}).ok());
  ExchangeRun run(dir.path());
  ASSERT_TRUE(run.entry->StartReports().ok());
  run.entry->Submit(Order("S1", "A1", "F1", "b-2", Side::kBuy, 4980, 5));
  run.Settle(1);
  const std::string id = run.reports.All().at(0).exec_id;
  EXPECT_EQ(id, absl::StrCat(SeqOf(id), ".1-0"));
  auto generation = ReadExecIdGeneration(reported + ".generation");
  ASSERT_TRUE(generation.ok()) << generation.status();
  EXPECT_EQ(generation->generation, 1u);
  EXPECT_EQ(generation->from, last + 1);
}

// Outcomes of inputs sequenced after the core started but before StartReports (here, an
// order offered to the core directly) are delivered, not dropped, and not marked: they were
// never sent.
TEST(ExchangeOrderEntryReportsTest, InputsSequencedBeforeStartReportsAreReportedOnce) {
  testsupport::TempDir dir{"cfx_reports_test"};
  ExchangeRun run(dir.path());
  run.entry->Submit(Order("S1", "A1", "F1", "early", Side::kBuy, 4990, 1));
  ASSERT_TRUE(run.core->Flush().ok());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(run.reports.Count(), 0u) << "held back until StartReports";
  ASSERT_TRUE(run.entry->StartReports().ok());
  run.entry->Submit(Order("S1", "A1", "F1", "late", Side::kBuy, 4990, 1));
  run.Settle(2);
  std::vector<Report> all = run.reports.All();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].cl, "early");
  EXPECT_EQ(all[1].cl, "late");
  EXPECT_FALSE(all[0].poss_resend);
  EXPECT_LT(SeqOf(all[0].exec_id), SeqOf(all[1].exec_id));
}

// Once StopReports ran (the gateway is about to stop) the file moves no more: what is
// reported after it comes again at the next start.
TEST(ExchangeOrderEntryReportsTest, AfterStopReportsTheFileStaysAndTheNextStartReportsAgain) {
  testsupport::TempDir dir{"cfx_reports_test"};
  {
    ExchangeRun run(dir.path());
    ASSERT_TRUE(run.entry->StartReports().ok());
    run.entry->Submit(Order("S1", "A1", "F1", "before", Side::kBuy, 4990, 1));
    run.Settle(1);
    run.entry->Submit(Order("S1", "A1", "F1", "before-2", Side::kBuy, 4990, 1));
    run.Settle(2);  // idle after before-2: StopReports writes its input
    run.entry->StopReports();
    run.entry->Submit(Order("S1", "A1", "F1", "after", Side::kBuy, 4990, 1));
    run.Settle(3);
    std::this_thread::sleep_for(30ms);  // past the 10 ms between writes: none comes
    run.entry->Submit(Order("S1", "A1", "F1", "after-2", Side::kBuy, 4990, 1));
    run.Settle(4);
  }
  ExchangeRun again(dir.path());
  ASSERT_TRUE(again.entry->StartReports().ok());
  std::vector<Report> all = again.reports.All();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].cl, "after");
  EXPECT_EQ(all[1].cl, "after-2");
  EXPECT_TRUE(all[0].poss_resend);
}

// A report the listener holds outside its stores (the FIX gateway, while the session's Logon
// is processed: docs/fix.md, "Messages numbered during a Logon") keeps the file where it
// was; once nothing is held, the file moves on.
TEST(ExchangeOrderEntryReportsTest, TheFileWaitsWhileTheListenerHoldsAReportOutsideItsStores) {
  testsupport::TempDir dir{"cfx_reports_test"};
  const std::string path = dir.path() + "/reported";
  auto file = [&]() -> uint64_t {
    auto w = internal::ReportWatermark::Open(path);
    EXPECT_TRUE(w.ok()) << w.status();
    return w.ok() && (*w)->found() ? *(*w)->found() : 0;
  };
  ExchangeRun run(dir.path());
  ASSERT_TRUE(run.entry->StartReports().ok());
  run.entry->Submit(Order("S1", "A1", "F1", "stored", Side::kBuy, 4990, 1));
  run.Settle(1);
  const uint64_t first = SeqOf(run.reports.All()[0].exec_id);
  EXPECT_TRUE(testsupport::WaitFor([&] { return file() >= first; }, 10s)) << file();
  run.reports.holds_unstored = true;
  std::this_thread::sleep_for(30ms);  // past the 10 ms between writes: the next idle writes
  run.entry->Submit(Order("S1", "A1", "F1", "held", Side::kBuy, 4990, 1));
  run.Settle(2);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(file(), first);
  run.reports.holds_unstored = false;
  std::this_thread::sleep_for(30ms);
  run.entry->Submit(Order("S1", "A1", "F1", "after", Side::kBuy, 4990, 1));
  run.Settle(3);
  const uint64_t last = SeqOf(run.reports.All()[2].exec_id);
  EXPECT_TRUE(testsupport::WaitFor([&] { return file() >= last; }, 10s)) << file();
}

// A resend (43=Y) of an order the exchange has is dropped: its reports went out or come
// again at the start. Without the flag the same ClOrdID is the engine's duplicate.
TEST(ExchangeOrderEntryReportsTest, AResentOrderTheExchangeHasIsDropped) {
  testsupport::TempDir dir{"cfx_reports_test"};
  ExchangeRun run(dir.path());
  ASSERT_TRUE(run.entry->StartReports().ok());
  NewOrder order = Order("S1", "A1", "F1", "p-1", Side::kBuy, 4990, 1);
  run.entry->Submit(order);
  run.Settle(1);
  order.poss_dup = true;
  run.entry->Submit(order);
  ReplaceOrder replace = Amend("p-1", "p-0", 0, 0);  // its new id names the order: known
  replace.poss_dup = true;
  run.entry->Replace(replace);
  order.poss_dup = false;
  run.entry->Submit(order);
  run.Settle(2);
  // Flagged, but not that order (another price): no resend of it, so judged by the engine
  // like any order, and its reject is sent.
  order.poss_dup = true;
  order.price_ticks = 4980;
  run.entry->Submit(order);
  run.Settle(3);
  // An order replaced since goes by its new id: a resend of its NewOrder, and one of the
  // replace that leaves out the optional 55, are dropped too (they used to be answered
  // duplicate_client_id and unknown_order).
  NewOrder first = Order("S1", "A1", "F1", "q-1", Side::kBuy, 4970, 2);
  run.entry->Submit(first);
  ReplaceOrder move = Amend("q-2", "q-1", 0, 3);
  run.entry->Replace(move);
  run.Settle(5);
  first.poss_dup = true;
  run.entry->Submit(first);
  move.poss_dup = true;
  move.symbol.clear();
  run.entry->Replace(move);
  run.Settle(5);  // the core has published both: no report came
  std::vector<Report> all = run.reports.All();
  ASSERT_EQ(all.size(), 5u) << run.reports.Text();
  EXPECT_EQ(all[0].kind, "accepted");
  EXPECT_EQ(all[1].kind + " " + all[1].reason, "rejected duplicate_client_id");
  EXPECT_EQ(all[2].kind + " " + all[2].reason, "rejected duplicate_client_id");
  EXPECT_EQ(all[3].kind + " " + all[3].cl, "accepted q-1");
  EXPECT_EQ(all[4].kind + " " + all[4].cl, "replaced q-2");
}

// A cancel's and a mass cancel's own ClOrdID are journaled (codec 4), so like every id they
// are held to the engine's 32 characters: longer, the request is refused invalid_field.
TEST(ExchangeOrderEntryReportsTest, ACancelWhoseOwnIdIsTooLongForTheJournalIsRefused) {
  testsupport::TempDir dir{"cfx_reports_test"};
  ExchangeRun run(dir.path());
  ASSERT_TRUE(run.entry->StartReports().ok());
  run.entry->Submit(Order("S1", "A1", "F1", "l-1", Side::kBuy, 4990, 1));
  run.Settle(1);
  const std::string long_id(33, 'x');
  run.entry->Cancel({"S1", 0, "A1", long_id, "l-1", kSymbol});
  run.entry->MassCancelOrders({"S1", 0, long_id, "A1", kSymbol});
  EXPECT_TRUE(testsupport::WaitFor([&] { return run.reports.Count() >= 3; }, 10s));
  std::vector<Report> all = run.reports.All();
  ASSERT_EQ(all.size(), 3u) << run.reports.Text();
  EXPECT_EQ(all[1].kind + " " + all[1].reason, "cancel_rejected invalid_field");
  EXPECT_EQ(all[2].kind + " " + all[2].reason, "mass invalid_field");
  EXPECT_EQ(run.reports.Last("l-1"), "accepted") << "the order still works";
}

// A replicated exchange (docs/replication.md, "Reports after a failover"): the leader
// records in its stream how far its reports went out; the node that takes over reports
// again the outcomes of the inputs after that mark, marked PossResend. Here the old
// primary's last inputs were sequenced (and, in a replicated exchange, replicated) by a
// core with no one reporting them, as when it dies between the commit and the reports.
TEST(ExchangeOrderEntryReportsTest, AfterAFailoverTheInputsAfterTheStreamsMarkAreReportedAgain) {
  testsupport::TempDir dir{"cfx_reports_test"};
  uint64_t marked = 0, stopped_at = 0;
  {
    ExchangeRun run(dir.path(), /*stream=*/true);
    ASSERT_TRUE(run.entry->StartReports().ok());
    EXPECT_EQ(run.core->ReportsSentThrough(), 0u);
    Trade(run);
    uint64_t last = 0;
    for (const Report& r : run.reports.All()) {
      if (!r.exec_id.empty()) last = std::max(last, SeqOf(r.exec_id));
    }
    // The mark moves at an idle moment at most every 50 ms: the clock's next input (each
    // second with the wall clock) brings one.
    int64_t now = kMarch2027 + 10 * 3600 * kNsPerSec;
    for (int i = 0; i < 100 && run.core->ReportsSentThrough() < last; ++i) {
      std::this_thread::sleep_for(60ms);
      now += kNsPerSec;
      ASSERT_EQ(run.core->AdvanceTime(now), exchange::OfferResult::kAccepted);
      ASSERT_TRUE(run.core->Flush().ok());
    }
    marked = run.core->ReportsSentThrough();
    ASSERT_GE(marked, last);
    // An input that reports nothing moves no mark; the stop's last mark covers it.
    ASSERT_EQ(run.core->AdvanceTime(now + kNsPerSec), exchange::OfferResult::kAccepted);
    ASSERT_TRUE(run.core->Flush().ok());
    ASSERT_TRUE(testsupport::WaitFor([&] { return run.entry->ReportedThrough() > marked; }, 10s));
    std::this_thread::sleep_for(60ms);
    EXPECT_EQ(run.core->ReportsSentThrough(), marked);
    stopped_at = run.entry->ReportedThrough();
  }
  {
    // The old primary's last inputs, never reported.
    exchange::ExchangeOptions options;
    options.data_dir = dir.path();
    options.clock = exchange::ClockMode::kManual;
    exchange::ExchangeCore core(order_entry_test::OneGradeConfig({{"A1", "F1"}, {"A2", "F2"}}),
                                options);
    ASSERT_TRUE(core.Start().ok());
    auto order = [](const char* session, const char* acct, const char* firm, const char* cl,
                    engine::Side side, uint32_t msg_seq) {
      engine::NewOrderCmd c;
      c.cl.Assign(cl);
      c.acct.Assign(acct);
      c.firm.Assign(firm);
      c.sym.Assign(kSymbol);
      c.side = side;
      c.tif = engine::TimeInForce::kGtc;
      c.qty = engine::Qty(1);
      c.px = engine::PriceField::Ticks(engine::PriceTicks(4990));  // above the run's bids
      c.session = SessionIdOf(session);
      c.origin = engine::Origin{c.session, msg_seq};
      return c;
    };
    ASSERT_EQ(core.Submit(order("S1", "A1", "F1", "x-1", engine::Side::kBuy, 900), 0),
              exchange::OfferResult::kAccepted);
    ASSERT_EQ(core.Submit(order("S2", "A2", "F2", "x-2", engine::Side::kSell, 901), 0),
              exchange::OfferResult::kAccepted);
    ASSERT_TRUE(core.Flush().ok());
    // The run's stop recorded a last mark: everything it reported.
    EXPECT_EQ(core.ReportsSentThrough(), stopped_at);
    marked = stopped_at;
    ASSERT_TRUE(core.Stop().ok());
  }
  ExchangeRun next(dir.path(), /*stream=*/true);  // the node that takes over
  ASSERT_TRUE(next.entry->StartReports().ok());
  std::vector<std::string> got;
  for (const Report& r : next.reports.All()) {
    got.push_back(r.kind + " " + r.session + " " + r.cl);
    EXPECT_TRUE(r.poss_resend) << r.Key();
    EXPECT_GT(SeqOf(r.exec_id), marked) << r.Key();
  }
  EXPECT_EQ(got, (std::vector<std::string>{"accepted S1 x-1", "accepted S2 x-2", "fill S1 x-1",
                                           "fill S2 x-2"}));
  // Live from here, not marked.
  next.entry->Submit(Order("S1", "A1", "F1", "b-9", Side::kBuy, 4900, 1));
  next.Settle(got.size() + 1);
  EXPECT_EQ(next.reports.All().back().cl, "b-9");
  EXPECT_FALSE(next.reports.All().back().poss_resend);
}

}  // namespace
}  // namespace cfx::gateway::reports_test
