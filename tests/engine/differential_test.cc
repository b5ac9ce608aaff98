// Differential test: long random command streams through the Engine and through the simple
// ReferenceBook must give the same events (accepts, rejects, trades, cancels, replaces,
// triggers), the same book, the same trading state and the same number of live orders after
// every command. Scope: one contract, with trading states (pre_open/open/halted/closed), the
// opening auction, gtd expiry by `time`, `close`, and commands naming an unknown symbol.
//
// On a divergence the stream is shrunk and printed as §4.1 replay lines, ready for
// `cfx replay --input`.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cfx/engine/engine.h"
#include "cfx/engine/replay.h"
#include "command_stream.h"
#include "gtest/gtest.h"
#include "reference_book.h"

namespace cfx::engine::testing {
namespace {

class Normalise : public EngineListener {
 public:
  void OnAccepted(const Event& e) override { out.push_back("A " + Cl(e.order)); }
  void OnRejected(const Event& e) override {
    out.push_back("J " + Cl(e.order) + " " + std::string(ToString(e.reject)));
  }
  void OnTrade(const Event& e) override {
    out.push_back("T " + std::to_string(e.px.value()) + " " + std::to_string(e.qty.value()) + " " +
                  Cl(e.order) + " " + Cl(e.other) + " " + std::string(ToString(e.aggressor)));
  }
  void OnCanceled(const Event& e) override {
    out.push_back("C " + Cl(e.order) + " " + std::to_string(e.qty.value()) + " " +
                  std::string(ToString(e.cancel)));
  }
  void OnReplaced(const Event& e) override {
    out.push_back("P " + Cl(e.order) + " " + std::string(e.orig.view()) + " " +
                  (e.has_px ? std::to_string(e.px.value()) : "-") + " " +
                  std::to_string(e.qty.value()));
  }
  void OnTriggered(const Event& e) override { out.push_back("G " + Cl(e.order)); }
  void OnCancelRejected(const Event& e) override {
    out.push_back("X " + std::string(e.orig.view()) + " " + std::string(ToString(e.reject)));
  }
  // State changes are not compared as events (§4.1 defines none); the state itself is.
  std::vector<std::string> out;

 private:
  static std::string Cl(const OrderInfo& o) { return std::string(o.cl.view()); }
};

std::vector<std::string> EngineDepth(const Engine& engine, Side side) {
  std::vector<LevelView> levels;
  engine.book(0).Depth(side, &levels);
  std::vector<std::string> r;
  for (const auto& l : levels) {
    r.push_back(std::to_string(l.px.value()) + ":" + std::to_string(l.display_qty.value()) + ":" +
                std::to_string(l.count));
  }
  return r;
}

// --- Running both -----------------------------------------------------------------------

ProductCmd Product(bool has_ref) {
  ProductCmd p;
  p.sym.Assign("S");
  if (has_ref) p.ref = PriceField::Ticks(PriceTicks(5000));
  return p;
}

// Applies a command to the model (std::visit picks the overload).
struct ApplyTo {
  ReferenceBook& ref;
  void operator()(const NewOrderCmd& c) { ref.New(c); }
  void operator()(const CancelCmd& c) { ref.Cancel(c); }
  void operator()(const ReplaceCmd& c) { ref.Replace(c); }
  void operator()(const MassCancelCmd& c) { ref.MassCancel(c); }
  void operator()(const StateCmd& c) { ref.State(c); }
  void operator()(const TimeCmd& c) { ref.Time(c); }
  void operator()(const CloseCmd& c) { ref.Close(c); }
  void operator()(const ProductCmd&) { ADD_FAILURE() << "the streams list no products"; }
  void operator()(const FixSessionCmd&) {}  // no engine state
  void operator()(const RiskCmd&) {}        // no engine state
};

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

struct Outcome {
  int diverged_at = -1;  // index of the first command whose outcome differs; -1: none
  std::string what;
  ReferenceBook::Stats stats;
};

// How the engine runs a stream: `window` caps its dense price window (the model has none),
// so a small one puts most prices in far levels and moves the window all the time; with
// `restore_half_way` the engine is snapshotted after half the stream and the rest runs on
// an engine restored from it (whose window sits where its orders put it).
struct Variant {
  bool has_ref = true;
  bool ids_per_day = false;
  size_t window = size_t{1} << 20;
  bool restore_half_way = false;
};

// Runs `cmds` through both after listing the contract; compares after every command.
Outcome RunBoth(const Variant& v, const std::vector<Command>& cmds) {
  const bool has_ref = v.has_ref;
  EngineConfig config;
  config.client_ids_per_day = v.ids_per_day;
  config.max_grid_levels = v.window;
  auto engine_ptr = std::make_unique<Engine>(config);
  Normalise events;
  engine_ptr->set_listener(&events);
  engine_ptr->Process(Product(has_ref));
  ReferenceBook ref("S", has_ref, 5000, 1000);
  ref.set_ids_per_day(v.ids_per_day);
  Outcome r;
  for (size_t i = 0; i < cmds.size(); ++i) {
    if (v.restore_half_way && i == cmds.size() / 2) {
      auto restored = std::make_unique<Engine>(config);
      absl::Status st = restored->Restore(engine_ptr->Snapshot());
      if (!st.ok() || restored->StateHash() != engine_ptr->StateHash()) {
        r.diverged_at = static_cast<int>(i);
        r.what = "restore: " + st.ToString() + "\n";
        return r;
      }
      restored->set_listener(&events);
      engine_ptr = std::move(restored);
    }
    Engine& engine = *engine_ptr;
    size_t before = events.out.size(), ref_before = ref.out().size();
    const TradingState state_before = engine.book(0).state();
    engine.Process(cmds[i]);
    std::visit(ApplyTo{ref}, cmds[i]);
    std::vector<std::string> got(events.out.begin() + before, events.out.end());
    std::vector<std::string> want(ref.out().begin() + ref_before, ref.out().end());
    std::string what;
    if (got != want) what = "events\nengine:\n" + Join(got) + "model:\n" + Join(want);
    for (Side side : {Side::kBuy, Side::kSell}) {
      if (what.empty() && EngineDepth(engine, side) != ref.Depth(side)) {
        what = std::string(ToString(side)) + " depth\nengine:\n" + Join(EngineDepth(engine, side)) +
               "model:\n" + Join(ref.Depth(side));
      }
    }
    if (what.empty() && engine.book(0).state() != ref.state()) {
      what = "state: engine " + std::string(ToString(engine.book(0).state())) + ", model " +
             std::string(ToString(ref.state()));
    }
    // After the opening auction the book is not crossed (the uncross). (`pre_open -> halted
    // -> open` runs no auction and may leave it crossed: docs/engine.md.)
    const OrderBook& book = engine.book(0);
    const bool opened =
        state_before == TradingState::kPreOpen && book.state() == TradingState::kOpen;
    if (what.empty() && opened && book.HasBest(Side::kBuy) && book.HasBest(Side::kSell) &&
        book.BestPrice(Side::kBuy) >= book.BestPrice(Side::kSell)) {
      what = "crossed book after the auction: bid " +
             std::to_string(book.BestPrice(Side::kBuy).value()) + " ask " +
             std::to_string(book.BestPrice(Side::kSell).value()) + "\n";
    }
    if (what.empty() && engine.live_orders() != ref.live_orders()) {
      what = "live orders: engine " + std::to_string(engine.live_orders()) + ", model " +
             std::to_string(ref.live_orders());
    }
    if (!what.empty()) {
      r.diverged_at = static_cast<int>(i);
      r.what = what;
      return r;
    }
  }
  r.stats = ref.stats();
  return r;
}

// Removes commands (halving chunks, then one by one) while the streams still diverge.
std::vector<Command> Shrink(const Variant& v, std::vector<Command> cmds, int diverged_at) {
  cmds.resize(diverged_at + 1);
  for (size_t chunk = cmds.size() / 2; chunk > 0; chunk /= 2) {
    for (size_t start = 0; start < cmds.size();) {
      std::vector<Command> cand(cmds.begin(), cmds.begin() + start);
      cand.insert(cand.end(), cmds.begin() + std::min(cmds.size(), start + chunk), cmds.end());
      Outcome o = RunBoth(v, cand);
      if (o.diverged_at >= 0) {
        cand.resize(o.diverged_at + 1);
        cmds = std::move(cand);
      } else {
        start += chunk;
      }
    }
  }
  return cmds;
}

void Add(ReferenceBook::Stats& sum, const ReferenceBook::Stats& s) {
  sum.auctions += s.auctions;
  sum.auctions_with_trades += s.auctions_with_trades;
  sum.auction_trades += s.auction_trades;
  sum.auction_stp_cancels += s.auction_stp_cancels;
  sum.auction_triggers += s.auction_triggers;
  sum.auction_iceberg_refills += s.auction_iceberg_refills;
  sum.auction_uncross_trades += s.auction_uncross_trades;
  sum.auction_by_imbalance += s.auction_by_imbalance;
  sum.auction_by_ref += s.auction_by_ref;
  sum.auction_by_lower += s.auction_by_lower;
  sum.gtd_expired += s.gtd_expired;
  sum.gtd_invalid += s.gtd_invalid;
  sum.closes += s.closes;
  sum.day_expired += s.day_expired;
  sum.state_rejects += s.state_rejects;
  sum.pre_open_rejects += s.pre_open_rejects;
  sum.pre_open_accepts += s.pre_open_accepts;
  sum.cancel_state_rejects += s.cancel_state_rejects;
  sum.replace_state_rejects += s.replace_state_rejects;
  sum.unknown_symbol += s.unknown_symbol;
}

// Runs one stream through both; on a divergence fails with a shrunk replay input.
void RunDifferential(uint64_t seed, int n, bool sessions, Variant v, ReferenceBook::Stats* sum) {
  std::vector<Command> cmds = RandomStream(seed, n, sessions);
  v.ids_per_day = seed % 2 == 1;  // both id rules (serve's and replay's)
  Outcome o = RunBoth(v, cmds);
  if (o.diverged_at >= 0) {
    std::vector<Command> small = Shrink(v, cmds, o.diverged_at);
    Outcome s = RunBoth(v, small);
    std::string lines = ToReplayLine(Product(v.has_ref)) + "\n";
    for (const Command& c : small) lines += ToReplayLine(c) + "\n";
    FAIL() << "seed " << seed << " (window " << v.window << " levels"
           << (v.restore_half_way ? ", restored half way" : "") << ") command " << o.diverged_at
           << ": " << o.what << "\nshrunk to " << small.size() + 1
           << " lines, differing at the last: " << s.what << "replay input:\n"
           << lines;
  }
  Add(*sum, o.stats);
}

// CFX_DIFFERENTIAL_SEEDS=N runs N seeds of each kind instead of the default (soak runs).
uint64_t Seeds(uint64_t fallback) {
  const char* env = std::getenv("CFX_DIFFERENTIAL_SEEDS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : fallback;
}

// Prints what the streams reached; they must reach every path the test exists for.
void Report(const ReferenceBook::Stats& sum) {
  std::printf(
      "differential: auctions %d (with trades %d, trades %d, stp cancels %d, triggers %d, "
      "iceberg refills %d, uncross trades %d; decided by imbalance %d, ref %d, lower price %d); "
      "gtd expired %d, "
      "gtd invalid %d; closes %d, day expired %d; state rejects: new %d, pre_open %d, "
      "cancel %d, replace %d; pre_open accepts %d; unknown symbol %d\n",
      sum.auctions, sum.auctions_with_trades, sum.auction_trades, sum.auction_stp_cancels,
      sum.auction_triggers, sum.auction_iceberg_refills, sum.auction_uncross_trades,
      sum.auction_by_imbalance, sum.auction_by_ref, sum.auction_by_lower, sum.gtd_expired,
      sum.gtd_invalid, sum.closes, sum.day_expired, sum.state_rejects, sum.pre_open_rejects,
      sum.cancel_state_rejects, sum.replace_state_rejects, sum.pre_open_accepts,
      sum.unknown_symbol);
  EXPECT_GT(sum.auctions_with_trades, 100);
  EXPECT_GT(sum.auction_stp_cancels, 0);
  EXPECT_GT(sum.auction_triggers, 0);
  EXPECT_GT(sum.auction_iceberg_refills, 0);
  EXPECT_GT(sum.auction_uncross_trades, 0);
  EXPECT_GT(sum.auction_by_imbalance, 0);
  EXPECT_GT(sum.auction_by_ref, 0);
  EXPECT_GT(sum.auction_by_lower, 0);
  EXPECT_GT(sum.gtd_expired, 100);
  EXPECT_GT(sum.gtd_invalid, 0);
  EXPECT_GT(sum.day_expired, 100);
  EXPECT_GT(sum.state_rejects, 100);
  EXPECT_GT(sum.pre_open_rejects, 100);
  EXPECT_GT(sum.cancel_state_rejects, 0);
  EXPECT_GT(sum.replace_state_rejects, 0);
  EXPECT_GT(sum.unknown_symbol, 0);
}

TEST(DifferentialTest, RandomStreamsAgreeWithReferenceBook) {
  ReferenceBook::Stats sum;
  const uint64_t seeds = Seeds(100);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    // One open contract all along, ref 5.000.
    RunDifferential(seed, 3000, /*sessions=*/false, {.has_ref = true}, &sum);
    // State changes, auctions, time and close; every fourth contract has no band reference.
    RunDifferential(1'000'000 + seed, 4000, /*sessions=*/true, {.has_ref = seed % 4 != 0}, &sum);
    if (HasFatalFailure()) return;
  }
  Report(sum);
}

// SPEC §4.1: any price of at least one tick can rest; the engine keeps a dense window of
// levels and the prices outside it in far levels (docs/engine.md). A window of 8 to 64
// levels around random prices 5.000 ± 0.600 puts many orders in far levels, moves the window
// over them as it empties and grows it, and runs auctions across both: the model, which has
// no window, must not see a difference. Every third stream is snapshotted half way and goes
// on in a restored engine, whose window is placed anew.
TEST(DifferentialTest, FarPricesAgreeWithReferenceBook) {
  ReferenceBook::Stats sum;
  const uint64_t seeds = Seeds(100) / 2;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const size_t window = size_t{8} << (seed % 4);
    const bool restore = seed % 3 == 0;
    RunDifferential(2'000'000 + seed, 3000, /*sessions=*/false,
                    {.has_ref = true, .window = window, .restore_half_way = restore}, &sum);
    RunDifferential(3'000'000 + seed, 4000, /*sessions=*/true,
                    {.has_ref = seed % 4 != 0, .window = window, .restore_half_way = restore},
                    &sum);
    if (HasFatalFailure()) return;
  }
  Report(sum);
}

TEST(DifferentialTest, SameCommandsGiveSameStateHash) {
  auto run = [](uint64_t seed) {
    Engine engine;
    engine.Process(Product(true));
    for (const Command& c : RandomStream(seed, 5000, true)) engine.Process(c);
    return engine.StateHash();
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

// The replay lines a failure prints parse back to the commands the test ran (a gtd order
// without expire is the only command replay itself refuses: `invalid_field` either way).
TEST(DifferentialTest, PrintedReplayLinesParseBackToTheStream) {
  std::vector<Command> cmds = RandomStream(11, 3000, true);
  cmds.insert(cmds.begin(), {Product(true), Product(false)});
  for (const Command& c : cmds) {
    std::string line = ToReplayLine(c);
    ParsedLine parsed = ParseCommandLine(line);
    auto* n = std::get_if<NewOrderCmd>(&c);
    if (n != nullptr && n->tif == TimeInForce::kGtd && n->expire == kNoTime) {
      EXPECT_EQ(parsed.kind, ParsedLine::Kind::kInvalid) << line;
      continue;
    }
    ASSERT_EQ(parsed.kind, ParsedLine::Kind::kCommand) << line;
    EXPECT_EQ(ToReplayLine(parsed.command), line);
  }
}

}  // namespace
}  // namespace cfx::engine::testing
