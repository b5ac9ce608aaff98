// ExchangeCore: placeholder while the implementation lands (header first, for the gateway).
#include "cfx/exchange/exchange_core.h"

namespace cfx::exchange {

class ExchangeCore::Impl {
 public:
  Impl(const ExchangeConfig& c, const ExchangeOptions& o) : config(c), options(o) {
    data_dir = o.data_dir.empty() ? c.data_dir : o.data_dir;
  }
  ExchangeConfig config;
  ExchangeOptions options;
  std::string data_dir;
};

ExchangeCore::ExchangeCore(const ExchangeConfig& config, const ExchangeOptions& options)
    : impl_(std::make_unique<Impl>(config, options)) {}
ExchangeCore::~ExchangeCore() { (void)Stop(); }
absl::StatusOr<RecoveryInfo> ExchangeCore::Start() {
  return absl::UnimplementedError("ExchangeCore::Start: not yet implemented");
}
absl::Status ExchangeCore::Stop() { return absl::OkStatus(); }
OfferResult ExchangeCore::Submit(const engine::Command&, uint64_t) { return OfferResult::kStopped; }
OfferResult ExchangeCore::AdvanceTime(engine::Timestamp, uint64_t) { return OfferResult::kStopped; }
absl::Status ExchangeCore::PreOpenAll() { return absl::UnavailableError("not started"); }
absl::Status ExchangeCore::OpenAll() { return absl::UnavailableError("not started"); }
absl::Status ExchangeCore::CloseAll() { return absl::UnavailableError("not started"); }
absl::Status ExchangeCore::RefreshMargins(const std::map<std::string, int64_t>&) {
  return absl::UnavailableError("not started");
}
absl::Status ExchangeCore::Flush(int64_t) const { return absl::UnavailableError("not started"); }
void ExchangeCore::AddListener(OutcomeListener*) {}
std::optional<BookView> ExchangeCore::BookSnapshot(std::string_view, int) const { return std::nullopt; }
std::vector<PositionView> ExchangeCore::Positions(std::string_view) const { return {}; }
std::vector<std::string> ExchangeCore::ListedSymbols() const { return {}; }
std::optional<OrderStateView> ExchangeCore::FindOrder(std::string_view, std::string_view) const {
  return std::nullopt;
}
ExchangeStats ExchangeCore::Stats() const { return {}; }
const ExchangeConfig& ExchangeCore::config() const { return impl_->config; }
const std::string& ExchangeCore::data_dir() const { return impl_->data_dir; }
engine::Timestamp ExchangeCore::now() const { return engine::kNoTime; }

}  // namespace cfx::exchange
