#include "cfx/exchange/replay_store.h"

#include <istream>

#include "cfx/engine/replay.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/trade_recorder.h"
#include "listing_outcomes.h"

namespace cfx::exchange {
namespace {

class RecordSink : public journal::OutcomeSink<Outcome> {
 public:
  explicit RecordSink(TradeRecorder* r) : r_(r) {}
  void Emit(const Outcome& o) override {
    r_->Add(seq, o);
    if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kTrade) ++trades;
  }
  uint64_t seq = 0;
  uint64_t trades = 0;

 private:
  TradeRecorder* r_;
};

}  // namespace

absl::StatusOr<ReplayStoreResult> PersistReplay(std::istream& in, const std::string& data_dir,
                                                const common::BusinessCalendar& calendar) {
  auto recorder = TradeRecorder::Open(data_dir, kDefaultEndedOrdersKept, calendar);
  if (!recorder.ok()) return recorder.status();
  MatcherOptions opt;
  opt.calendar = calendar;
  opt.expire_contracts = false;  // the store mirrors the printed §4.1 events
  EngineMatcher matcher(opt);
  internal::ListingOutcomes listing(&matcher);  // the `product` lines fill the security master
  RecordSink sink(recorder->get());
  ReplayStoreResult result;
  const uint64_t already = (*recorder)->last_seq();
  std::string line;
  while (std::getline(in, line)) {
    engine::ParsedLine parsed = engine::ParseCommandLine(line);
    if (parsed.kind != engine::ParsedLine::Kind::kCommand) continue;
    sink.seq = ++result.inputs;
    const uint64_t trades_before = sink.trades;
    listing.Apply(sink.seq, parsed.command, sink);
    if (sink.seq <= already) {
      sink.trades = trades_before;  // recorded by an earlier run
      continue;
    }
    (*recorder)->EndInput(sink.seq);
    ++result.recorded;
    if ((*recorder)->pending_inputs() >= 4096) {
      if (absl::Status s = (*recorder)->Commit(); !s.ok()) return s;
    }
  }
  if (absl::Status s = (*recorder)->Commit(); !s.ok()) return s;
  result.trades = sink.trades;
  result.state_hash = matcher.engine().StateHash();
  return result;
}

}  // namespace cfx::exchange
