// The exchange the demo drives (demo_internal.h `Venue`): the real ExchangeServer, in
// process, on loopback with ephemeral ports and a manual clock.

#include "cfx/exchange/exchange_core.h"
#include "cfx/gateway/exchange_server.h"
#include "demo_internal.h"

namespace cfx::demo {
namespace {

class ServerVenue : public Venue {
 public:
  ServerVenue(const common::ExchangeConfig& config, const DemoPaths& paths,
              common::TimestampUs start) {
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
  absl::Status AdvanceTime(common::TimestampUs ts) override {
    if (server_->core().AdvanceTime(ts * 1000) != exchange::OfferResult::kAccepted) {
      return absl::UnavailableError("the exchange refused the time input");
    }
    return server_->core().Flush();
  }
  absl::Status PreOpenAll() override { return Flushed(server_->core().PreOpenAll()); }
  absl::Status OpenAll() override { return Flushed(server_->core().OpenAll()); }
  absl::Status CloseAll() override { return Flushed(server_->core().CloseAll()); }
  // The server reads the margin basis (latest settlement) from the ledger when it starts.
  absl::Status AfterSettlement(common::Date) override { return absl::OkStatus(); }
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

absl::StatusOr<std::unique_ptr<Venue>> StartVenue(const common::ExchangeConfig& config,
                                                  const DemoPaths& paths,
                                                  common::TimestampUs start) {
  auto venue = std::make_unique<ServerVenue>(config, paths, start);
  if (absl::Status s = venue->Start(); !s.ok()) return s;
  return venue;
}

}  // namespace cfx::demo
