// Differential test: long random command streams through the Engine and through the
// simple ReferenceBook must give the same events (accepts, rejects, trades, cancels,
// replaces, triggers) and the same final book. Scope: one open contract (auctions and
// state changes are covered by the rule tests instead).
#include <random>

#include "cfx/engine/engine.h"
#include "gtest/gtest.h"
#include "reference_book.h"

namespace cfx::engine::testing {
namespace {

class Normalise : public EngineListener {
 public:
  explicit Normalise(const Engine& e) : e_(e) {}
  void OnAccepted(const Event& e) override { out.push_back("A " + Cl(e.order)); }
  void OnRejected(const Event& e) override {
    out.push_back("J " + Cl(e.order) + " " + std::string(ToString(e.reject)));
  }
  void OnTrade(const Event& e) override {
    out.push_back("T " + std::to_string(e.px) + " " + std::to_string(e.qty) + " " + Cl(e.order) +
                  " " + Cl(e.other) + " " + std::string(ToString(e.aggressor)));
  }
  void OnCanceled(const Event& e) override {
    out.push_back("C " + Cl(e.order) + " " + std::to_string(e.qty) + " " +
                  std::string(ToString(e.cancel)));
  }
  void OnReplaced(const Event& e) override {
    out.push_back("P " + Cl(e.order) + " " + std::string(e.orig.view()) + " " +
                  (e.has_px ? std::to_string(e.px) : "-") + " " + std::to_string(e.qty));
  }
  void OnTriggered(const Event& e) override { out.push_back("G " + Cl(e.order)); }
  void OnCancelRejected(const Event& e) override {
    out.push_back("X " + std::string(e.orig.view()) + " " + std::string(ToString(e.reject)));
  }
  std::vector<std::string> out;

 private:
  static std::string Cl(const OrderInfo& o) { return std::string(o.cl.view()); }
  const Engine& e_;
};

std::vector<std::string> EngineDepth(const Engine& engine, Side side) {
  std::vector<LevelView> levels;
  engine.book(0).Depth(side, &levels);
  std::vector<std::string> r;
  for (const auto& l : levels) {
    r.push_back(std::to_string(l.px) + ":" + std::to_string(l.display_qty) + ":" +
                std::to_string(l.count));
  }
  return r;
}

// Builds a random command; `next_cl` numbers client ids, `used` remembers (acct, cl).
Command RandomCommand(std::mt19937_64& rng, int& next_cl,
                      std::vector<std::pair<std::string, std::string>>& used) {
  static const char* kAccts[] = {"A1", "A2", "B1", "C1", "D1"};
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  int roll = pick(100);
  if (roll < 12 && !used.empty()) {
    auto& [acct, cl] = used[rng() % used.size()];
    CancelCmd c;
    c.orig.Assign(cl);
    c.acct.Assign(pick(20) == 0 ? "C1" : acct);
    return c;
  }
  if (roll < 30 && !used.empty()) {
    auto& [acct, cl] = used[rng() % used.size()];
    ReplaceCmd c;
    c.orig.Assign(cl);
    c.acct.Assign(acct);
    std::string ncl = pick(30) == 0 ? used[rng() % used.size()].second : "r" + std::to_string(next_cl++);
    c.cl.Assign(ncl);
    if (pick(3) != 0) c.px = PriceField::Ticks(5000 + pick(41) - 20);
    if (pick(2) == 0) {
      c.has_qty = true;
      c.qty = pick(25) - 2;
    }
    if (pick(40) == 0) c.px.on_tick = false;
    used.push_back({acct, ncl});
    return c;
  }
  if (roll < 32) {
    MassCancelCmd c;
    c.acct.Assign(kAccts[pick(5)]);
    return c;
  }
  NewOrderCmd c;
  std::string acct = kAccts[pick(5)];
  std::string cl = pick(50) == 0 && !used.empty() ? used[rng() % used.size()].second
                                                  : "o" + std::to_string(next_cl++);
  c.cl.Assign(cl);
  c.acct.Assign(acct);
  c.sym.Assign("S");
  used.push_back({acct, cl});
  c.side = pick(2) ? Side::kBuy : Side::kSell;
  int t = pick(100);
  c.type = t < 70 ? OrderType::kLimit : t < 80 ? OrderType::kMarket
         : t < 90 ? OrderType::kStop : OrderType::kStopLimit;
  int tif = pick(100);
  c.tif = tif < 60 ? TimeInForce::kDay : tif < 75 ? TimeInForce::kGtc
        : tif < 90 ? TimeInForce::kIoc : TimeInForce::kFok;
  int spread = pick(10) == 0 ? 600 : 20;  // sometimes outside the band
  c.px = PriceField::Ticks(5000 + pick(2 * spread + 1) - spread);
  if (pick(60) == 0) c.px.on_tick = false;
  c.stop = PriceField::Ticks(5000 + pick(41) - 20);
  c.qty = pick(60) == 0 ? 1001 : pick(40) == 0 ? 0 : 1 + pick(20);
  if (pick(6) == 0) {
    c.has_display = true;
    c.display = pick(6);
  }
  c.post_only = pick(12) == 0;
  if (pick(3) == 0) c.firm.Assign(pick(2) ? "F1" : "F2");
  if (pick(3) == 0) c.stp.Assign(pick(2) ? "X" : "Y");
  c.stp_action = static_cast<StpAction>(pick(3));
  return c;
}

void RunDifferential(uint64_t seed, int commands) {
  Engine engine;
  Normalise events(engine);
  engine.set_listener(&events);
  ProductCmd p;
  p.sym.Assign("S");
  p.ref = PriceField::Ticks(5000);
  engine.Process(p);
  ReferenceBook ref(5000, 1000);
  std::mt19937_64 rng(seed);
  int next_cl = 1;
  std::vector<std::pair<std::string, std::string>> used;
  for (int i = 0; i < commands; ++i) {
    Command cmd = RandomCommand(rng, next_cl, used);
    size_t before = events.out.size(), ref_before = ref.out().size();
    engine.Process(cmd);
    if (auto* n = std::get_if<NewOrderCmd>(&cmd)) ref.New(*n);
    else if (auto* c = std::get_if<CancelCmd>(&cmd)) ref.Cancel(*c);
    else if (auto* r = std::get_if<ReplaceCmd>(&cmd)) ref.Replace(*r);
    else if (auto* m = std::get_if<MassCancelCmd>(&cmd)) ref.MassCancel(std::string(m->acct.view()));
    std::vector<std::string> got(events.out.begin() + before, events.out.end());
    std::vector<std::string> want(ref.out().begin() + ref_before, ref.out().end());
    ASSERT_EQ(got, want) << "seed " << seed << " command " << i;
  }
  EXPECT_EQ(EngineDepth(engine, Side::kBuy), ref.Depth(Side::kBuy)) << "seed " << seed;
  EXPECT_EQ(EngineDepth(engine, Side::kSell), ref.Depth(Side::kSell)) << "seed " << seed;
}

TEST(DifferentialTest, RandomStreamsAgreeWithReferenceBook) {
  for (uint64_t seed = 1; seed <= 30; ++seed) RunDifferential(seed, 3000);
}

TEST(DifferentialTest, SameCommandsGiveSameStateHash) {
  auto run = [](uint64_t seed) {
    Engine engine;
    ProductCmd p;
    p.sym.Assign("S");
    p.ref = PriceField::Ticks(5000);
    engine.Process(p);
    std::mt19937_64 rng(seed);
    int next_cl = 1;
    std::vector<std::pair<std::string, std::string>> used;
    for (int i = 0; i < 5000; ++i) engine.Process(RandomCommand(rng, next_cl, used));
    return engine.StateHash();
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

}  // namespace
}  // namespace cfx::engine::testing
