// The exchange the demo drives (demo_internal.h `Venue`): the real ExchangeServer when
// this build has it; otherwise a stand-in made of what the gateway already has (the FIX
// gateway on its test FakeExchange, a trade recorder writing the settlement trade store,
// and the HTTP API over the ledger's margin), clearly named as such in the report.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "cfx/common/kv_store.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/gateway/exchange_server.h"
#include "cfx/gateway/fix_config.h"
#include "cfx/gateway/fix_fake_exchange.h"
#include "cfx/gateway/fix_gateway.h"
#include "cfx/settlement/trade_store.h"
#include "demo_internal.h"
#include "demo_margin.h"

namespace cfx::gateway::demo {
namespace {

// Forwards every outcome to the FIX gateway and keeps the trades (paired from the two
// fills of each trade id) and the books, stamped with the demo clock.
// Thread safety: mu_; the fake exchange calls from its worker thread.
class Recorder : public ExecutionListener {
 public:
  Recorder(ExecutionListener* next, const ExchangeConfig& config) : next_(next) {
    for (const AccountConfig& a : config.accounts) firm_of_[a.id] = a.firm;
  }
  void SetTime(TimestampUs ts) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ = ts;
  }
  Date today() {
    std::lock_guard<std::mutex> lock(mu_);
    return Date{static_cast<int32_t>(now_ / kUsPerDay)};
  }
  // Writes the trades and the closing quotes of `date` to <data_dir>/trades.
  absl::Status Flush(const std::string& data_dir, Date date) {
    absl::StatusOr<std::unique_ptr<KvStore>> kv =
        KvStore::Open(data_dir, KvOptions{.file = settlement::kTradeStoreFile});
    if (!kv.ok()) return kv.status();
    absl::StatusOr<std::unique_ptr<KvTxn>> txn = (*kv)->BeginWrite();
    if (!txn.ok()) return txn.status();
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, t] : trades_) {
      if (t.qty == 0) continue;
      if (absl::Status s = (*txn)->Put(settlement::kTradesTable, settlement::TradeKey(t.seq),
                                       settlement::FormatTradeJson(t));
          !s.ok()) {
        return s;
      }
    }
    for (const auto& [sym, q] : books_) {
      if (absl::Status s = (*txn)->Put(settlement::kClosesTable, settlement::CloseKey(sym, date),
                                       settlement::FormatCloseJson(sym, date, q));
          !s.ok()) {
        return s;
      }
    }
    return (*txn)->Commit();
  }

  void OnAccepted(const OrderState& o) override { next_->OnAccepted(o); }
  void OnRejected(const OrderState& o, const std::string& r) override { next_->OnRejected(o, r); }
  void OnFill(const OrderState& o, const Fill& f) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      settlement::Trade& t = trades_[f.trade_id];
      t.seq = static_cast<int64_t>(f.trade_id);
      t.ts = now_;
      t.sym = o.symbol;
      t.px_ticks = f.last_px_ticks;
      t.qty = f.last_qty;
      (o.side == Side::kBuy ? t.buy_acct : t.sell_acct) = o.account;
      (o.side == Side::kBuy ? t.buy_firm : t.sell_firm) = firm_of_[o.account];
    }
    next_->OnFill(o, f);
  }
  void OnCanceled(const OrderState& o, const std::string& r) override { next_->OnCanceled(o, r); }
  void OnReplaced(const OrderState& o) override { next_->OnReplaced(o); }
  void OnCancelRejected(const CancelRejected& r) override { next_->OnCancelRejected(r); }
  void OnTriggered(const OrderState& o) override { next_->OnTriggered(o); }
  void OnStatus(const StatusAnswer& a) override { next_->OnStatus(a); }
  void OnMassCancelResult(const MassCancelResult& r) override { next_->OnMassCancelResult(r); }
  void OnBookUpdate(const BookUpdate& b) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (now_ % kUsPerDay < 16 * kUsPerHour) {  // the close is the book before 16:00Z
        settlement::CloseQuote& q = books_[b.symbol];
        q.bid_ticks.reset();
        q.ask_ticks.reset();
        if (!b.bids.empty()) q.bid_ticks = b.bids.front().price_ticks;
        if (!b.asks.empty()) q.ask_ticks = b.asks.front().price_ticks;
      }
    }
    next_->OnBookUpdate(b);
  }
  void OnPublicTrade(const PublicTrade& t) override { next_->OnPublicTrade(t); }
  void OnSecurityList(const std::vector<std::string>& s) override { next_->OnSecurityList(s); }

 private:
  ExecutionListener* next_;
  std::map<std::string, std::string> firm_of_;
  std::mutex mu_;
  TimestampUs now_ = 0;
  std::map<uint64_t, settlement::Trade> trades_;
  std::map<std::string, settlement::CloseQuote> books_;
};

std::vector<std::string> ListedSymbols(const ExchangeConfig& config, TimestampUs start) {
  int y, m, d;
  YmdFromDate(Date{static_cast<int32_t>(start / kUsPerDay)}, &y, &m, &d);
  std::vector<std::string> out;
  for (const ProductConfig& p : config.products) {
    for (int k = 0; k < 12; ++k) {
      const int mm = (m - 1 + k) % 12 + 1, yy = y + (m - 1 + k) / 12;
      out.push_back(ContractSymbol{p.grade, yy, mm}.Key());
    }
  }
  return out;
}

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

class StandInVenue : public Venue {
 public:
  StandInVenue(const ExchangeConfig& config, const DemoPaths& paths, TimestampUs start)
      : config_(config), paths_(paths), exchange_(ListedSymbols(config, start)) {}
  ~StandInVenue() override { Stop(); }

  absl::Status Start(TimestampUs start) {
    FixGatewayConfig fix = FixGatewayConfigFromExchange(config_);
    fix.port = FreeLoopbackPort();  // the gateway cannot report an ephemeral port
    fix_port_ = fix.port;
    fix.data_dir = paths_.data;
    for (FixSessionSpec& s : fix.sessions) s.reset_on_logon = true;
    gateway_ = std::make_unique<FixGateway>(fix, &exchange_);
    recorder_ = std::make_unique<Recorder>(gateway_.get(), config_);
    recorder_->SetTime(start);
    exchange_.SetListener(recorder_.get());
    exchange_.Start();
    if (absl::Status s = gateway_->Start(); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<LedgerHttp>> http = LedgerHttp::Start(config_);
    if (!http.ok()) return http.status();
    http_ = std::move(*http);
    return absl::OkStatus();
  }
  int fix_port() const override { return fix_port_; }
  int http_port() const override { return http_ ? http_->port() : 0; }
  absl::Status AdvanceTime(TimestampUs ts) override {
    exchange_.Drain();
    recorder_->SetTime(ts);
    return absl::OkStatus();
  }
  absl::Status OpenAll() override { return absl::OkStatus(); }   // always open
  absl::Status PreOpenAll() override { return absl::OkStatus(); }
  // The fake exchange has no session states; the close is where the day's trades and
  // closing books go to the trade store, as the real core's recorder would have done.
  absl::Status CloseAll() override {
    exchange_.Drain();
    return recorder_->Flush(paths_.data, recorder_->today());
  }
  absl::Status AfterSettlement(Date date) override {
    return http_->Load(paths_.data, date, config_.psr);
  }
  void Stop() override {
    if (http_) http_->Stop();
    if (gateway_) gateway_->Stop();
    exchange_.Stop();
  }
  std::string Describe() const override {
    return "stand-in: FIX gateway on the test FakeExchange (no bands, no auction, no STP), "
           "trades recorded by the demo; ExchangeServer not in this build";
  }

 private:
  const ExchangeConfig config_;
  const DemoPaths paths_;
  int fix_port_ = 0;
  testing::FakeExchange exchange_;
  std::unique_ptr<FixGateway> gateway_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<LedgerHttp> http_;
};

// The real exchange: ExchangeServer (core + FIX + HTTP) with a manual clock.
class ServerVenue : public Venue {
 public:
  ServerVenue(const ExchangeConfig& config, const DemoPaths& paths, TimestampUs start) {
    ExchangeServerOptions options;
    options.data_dir = paths.data;
    options.fix_port = 0;
    options.http_port = 0;
    options.manual_clock = true;
    options.start_time = start * 1000;  // ns
    server_ = std::make_unique<ExchangeServer>(config, options);
  }
  ~ServerVenue() override { Stop(); }
  absl::Status Start() { return server_->Start(); }
  int fix_port() const override { return server_->fix_port(); }
  int http_port() const override { return server_->http_port(); }
  absl::Status AdvanceTime(TimestampUs ts) override {
    if (server_->core().AdvanceTime(ts * 1000) != exchange::OfferResult::kAccepted) {
      return absl::UnavailableError("the exchange refused the time input");
    }
    return server_->core().Flush();
  }
  absl::Status PreOpenAll() override { return Flushed(server_->core().PreOpenAll()); }
  absl::Status OpenAll() override { return Flushed(server_->core().OpenAll()); }
  absl::Status CloseAll() override { return Flushed(server_->core().CloseAll()); }
  // The server reads the margin basis (latest settlement) from the ledger when it starts.
  absl::Status AfterSettlement(Date) override { return absl::OkStatus(); }
  void Stop() override {
    if (!stopped_) {
      stopped_ = true;
      server_->Stop().IgnoreError();
    }
  }
  std::string Describe() const override {
    return "ExchangeServer (engine + journal + trade recorder, FIX 4.4, HTTP) in-process, "
           "manual clock";
  }

 private:
  absl::Status Flushed(absl::Status s) {
    if (!s.ok()) return s;
    return server_->core().Flush();
  }
  std::unique_ptr<ExchangeServer> server_;
  bool stopped_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Venue>> StartVenue(const ExchangeConfig& config,
                                                  const DemoPaths& paths, TimestampUs start) {
  if (std::getenv("CFX_DEMO_STAND_IN") != nullptr) {
    auto venue = std::make_unique<StandInVenue>(config, paths, start);
    if (absl::Status s = venue->Start(start); !s.ok()) return s;
    return venue;
  }
  auto venue = std::make_unique<ServerVenue>(config, paths, start);
  if (absl::Status s = venue->Start(); !s.ok()) return s;
  return venue;
}

}  // namespace cfx::gateway::demo
