#include "cfx/exchange/replay_store.h"

#include <algorithm>
#include <istream>
#include <optional>
#include <variant>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cfx/common/credentials.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
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

// The meta row: how many inputs the store holds and their digest.
constexpr char kReplayInputsKey[] = "replay_inputs";
std::string InputsMeta(uint64_t n, const std::string& digest) {
  return absl::StrCat(n, " ", digest);
}

}  // namespace

using PriceTicksOrNone = std::optional<engine::PriceTicks>;

// The years of the months a data dir takes (CheckReplayListsContracts).
constexpr int kFirstListedYear = 2000;
constexpr int kLastListedYear = 2999;

absl::Status CheckReplayListsContracts(std::istream& in) {
  // A data dir holds contracts that settle: a `product` line whose symbol is no contract's
  // (SPEC §2: <grade>-<YYYYMM>) would put trades in the store that no settlement can take
  // (`cfx settle` refused every date of it).
  std::string line;
  uint64_t number = 0;
  engine::Timestamp latest = engine::kNoTime;  // the file's latest `time` so far
  for (engine::ReplayLine read;
       (read = engine::ReadReplayLine(in, &line)) != engine::ReplayLine::kEnd;) {
    ++number;
    if (read == engine::ReplayLine::kTooLong) continue;
    engine::ParsedLine parsed = engine::ParseCommandLine(line);
    const auto* product = parsed.kind == engine::ParsedLine::Kind::kCommand
                              ? std::get_if<engine::ProductCmd>(&parsed.command)
                              : nullptr;
    const absl::string_view sym =
        product != nullptr ? absl::string_view(product->sym.data, product->sym.len) : "";
    // The exchange's price limit (MatcherOptions::kMaxLimitPrice): a day that traded above
    // it could not be settled (its sums do not fit in 64 bits); cfx serve refuses such
    // orders, and a data dir takes none.
    PriceTicksOrNone px;
    if (const auto* n = std::get_if<engine::NewOrderCmd>(&parsed.command);
        n != nullptr && parsed.kind == engine::ParsedLine::Kind::kCommand && n->px.present) {
      px = n->px.ticks;
    } else if (const auto* r = std::get_if<engine::ReplaceCmd>(&parsed.command);
               r != nullptr && parsed.kind == engine::ParsedLine::Kind::kCommand && r->px.present) {
      px = r->px.ticks;
    }
    if (px && *px > MatcherOptions::kMaxLimitPrice) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", number,
          ": px: a limit price above 1000000.000 USD per GPU-hour, the most the exchange takes (a "
          "data dir's days must settle); replay without --data-dir to run it; nothing was "
          "written"));
    }
    // A time the engine holds at the end of its range (before 1677-09-22 or after
    // 2262-04-11, docs/formats.md) would stamp the store's trades with another day than
    // the file's, and settlement would never see them.
    if (const auto* t = std::get_if<engine::TimeCmd>(&parsed.command);
        t != nullptr && parsed.kind == engine::ParsedLine::Kind::kCommand &&
        (t->ts >= INT64_MAX - 1 || t->ts <= engine::kNoTime + 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", number,
          ": ts: a time outside 1677-09-22 .. 2262-04-11, which the engine's nanosecond clock "
          "cannot hold (its trades would be stamped another day); replay without --data-dir "
          "to run it; nothing was written"));
    }
    if (const auto* t = std::get_if<engine::TimeCmd>(&parsed.command);
        t != nullptr && parsed.kind == engine::ParsedLine::Kind::kCommand) {
      latest = std::max(latest, t->ts);
    }
    if (product == nullptr) continue;
    const absl::StatusOr<common::ContractSymbol> contract = common::ParseSymbol(sym);
    if (!contract.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", number, ": sym: product '", absl::CHexEscape(sym),
          "' is not a contract symbol (GPU-TIER-REGION-YYYYMM, e.g. B200-GOLD-US-202703): "
          "a data dir holds contracts that settle; replay without --data-dir to run it; "
          "nothing was written"));
    }
    // A month no exchange lists (year 0000, or one whose month ended before the file's time
    // got there) takes trades that no settlement date can settle: every later `cfx settle`
    // of the data dir failed on it (until 2026-12-07, a review).
    if (contract->year < kFirstListedYear || contract->year > kLastListedYear) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": sym: product '", sym, "': a month of year ",
                       contract->year, ", outside ", kFirstListedYear, "..", kLastListedYear,
                       "; replay without --data-dir to run it; nothing was written"));
    }
    const int32_t month_end =
        common::DateFromYmd(contract->month == 12 ? contract->year + 1 : contract->year,
                            contract->month == 12 ? 1 : contract->month + 1, 1)
            .days -
        1;
    constexpr int64_t kNsPerDay = 86'400'000'000'000;
    // The day of `latest` (floor division, which cannot overflow), or none before the
    // file's first time.
    const auto day_of = [](int64_t ns) { return ns / kNsPerDay - (ns % kNsPerDay < 0 ? 1 : 0); };
    if (latest != engine::kNoTime && day_of(latest) > month_end) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", number, ": sym: product '", sym, "' listed after its month ended (the file's ",
          "time is ", common::FormatTimestamp(latest / 1000),
          "): its trades could never be settled; replay without --data-dir to run it; nothing "
          "was written"));
    }
  }
  in.clear();
  in.seekg(0);
  if (!in) return absl::InternalError("replay: the input cannot be read a second time");
  return absl::OkStatus();
}

absl::StatusOr<ReplayStoreResult> PersistReplay(std::istream& in, const std::string& data_dir,
                                                const common::BusinessCalendar& calendar) {
  if (absl::Status s = CheckReplayListsContracts(in); !s.ok()) return s;
  auto recorder = TradeRecorder::Open(data_dir, kDefaultEndedOrdersKept, calendar);
  if (!recorder.ok()) return recorder.status();
  MatcherOptions opt;
  opt.calendar = calendar;
  opt.expire_contracts = false;  // the store mirrors the printed §4.1 events
  opt.close_day_orders = false;  // only the file's `close` inputs expire day orders
  opt.engine.client_ids_per_day = false;  // ids taken for the whole run, as replay prints
  opt.engine.max_price = engine::PriceTicks(0);  // any price, as replay prints
  opt.max_stp_groups_per_firm = 0;  // no cap (nothing sequences one here), as replay prints
  EngineMatcher matcher(opt);
  internal::ListingOutcomes listing(&matcher);  // the `product` lines fill the security master
  RecordSink sink(recorder->get());
  ReplayStoreResult result;
  const uint64_t already = (*recorder)->last_seq();
  // What the store holds came from `already` inputs whose digest it keeps: this file must
  // begin with those same inputs (a re-run, or a file that extends the earlier one), else
  // its first inputs would be skipped as recorded when they never were.
  auto stored = (*recorder)->GetMeta(kReplayInputsKey);
  if (!stored.ok()) return stored.status();
  if (already > 0 && !stored->has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        data_dir, " holds ", already,
        " inputs that no `cfx replay --data-dir` recorded (cfx serve's, or an earlier cfx's): "
        "replay into a fresh data dir"));
  }
  auto mismatch = [&](uint64_t n) {
    return absl::FailedPreconditionError(absl::StrCat(
        data_dir, " holds the replay of another input: its ", already, " inputs are not ",
        n < already ? absl::StrCat("this file's ", n) : "the first of this file's",
        " (a data dir holds one replay; replay a file that begins with the earlier one's "
        "lines and goes on, or use a fresh data dir); nothing was written"));
  };
  std::string digest;  // SHA-256 chained over the inputs' lines: inputs 1..seq
  std::string line;
  for (engine::ReplayLine read;
       (read = engine::ReadReplayLine(in, &line)) != engine::ReplayLine::kEnd;) {
    if (read == engine::ReplayLine::kTooLong) continue;  // rejected: not an input
    engine::ParsedLine parsed = engine::ParseCommandLine(line);
    if (parsed.kind != engine::ParsedLine::Kind::kCommand) continue;
    // Committed before the next input, not after the last: the closing quote below joins
    // the last input's rows.
    if ((*recorder)->pending_inputs() >= 4096) {
      (*recorder)->PutMeta(kReplayInputsKey, InputsMeta(sink.seq, digest));
      if (absl::Status s = (*recorder)->Commit(); !s.ok()) return s;
    }
    sink.seq = ++result.inputs;
    digest = common::TokenSha256Hex(absl::StrCat(digest, "\n", line));
    const uint64_t trades_before = sink.trades;
    listing.Apply(sink.seq, parsed.command, sink);
    if (sink.seq <= already) {
      sink.trades = trades_before;  // recorded by an earlier run
      if (sink.seq == already && **stored != InputsMeta(already, digest)) {
        return mismatch(already);
      }
      continue;
    }
    (*recorder)->EndInput(sink.seq);
    ++result.recorded;
  }
  if (result.inputs < already) return mismatch(result.inputs);
  // The file ends before the close of the day its last time is in: that day's book at the
  // close is the book now (SPEC §9). A file that extends this one replaces the quote, with
  // its own end or with the close its time reaches. Recorded with the last input; nothing
  // when this run recorded no input (a re-run).
  if (result.recorded > 0) matcher.EmitOpenDayClose(sink);
  (*recorder)->PutMeta(kReplayInputsKey, InputsMeta(result.inputs, digest));
  if (absl::Status s = (*recorder)->Commit(); !s.ok()) return s;
  result.trades = sink.trades;
  result.state_hash = matcher.engine().StateHash();
  return result;
}

}  // namespace cfx::exchange
