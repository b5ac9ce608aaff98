#include "cfx/settlement/trade_store.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/storage/kv_store.h"

namespace cfx::settlement {
namespace {

// Reads one transaction's view of the engine's trade store.
class LmdbTradeSource : public TradeSource {
 public:
  explicit LmdbTradeSource(std::unique_ptr<storage::KvStore> store) : store_(std::move(store)) {}

  absl::Status ForEachTrade(common::TimestampUs from, common::TimestampUs to,
                            const std::function<absl::Status(const Trade&)>& fn) override {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    absl::Status inner;
    // Keys are zero-padded sequence numbers, so key order is sequence order. The whole
    // table is scanned: the contract does not promise that `ts` never goes backwards.
    absl::Status scan =
        (*txn)->Scan(kTradesTable, "", [&](absl::string_view key, absl::string_view value) {
          auto trade = ParseTradeJson(std::string_view(value.data(), value.size()));
          if (!trade.ok()) {
            inner = absl::InvalidArgumentError(absl::StrCat(
                store_->path(), " trades/", std::string(key), ": ", trade.status().message()));
            return false;
          }
          if (trade->ts < from || trade->ts >= to) return true;
          inner = fn(*trade);
          return inner.ok();
        });
    if (!scan.ok()) return scan;
    return inner;
  }

  absl::StatusOr<std::optional<CloseQuote>> Close(const std::string& sym,
                                                  common::Date date) override {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    std::string key = CloseKey(sym, date);
    auto value = (*txn)->Get(kClosesTable, key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return std::optional<CloseQuote>();
    auto quote = ParseCloseJson(**value);
    if (!quote.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(store_->path(), " closes/", key, ": ", quote.status().message()));
    }
    return std::optional<CloseQuote>(*quote);
  }

  absl::StatusOr<std::optional<uint64_t>> RecordedThrough() override {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    auto last = (*txn)->Get(trade_store::kMetaTable, trade_store::kLastSeqKey);
    if (!last.ok()) return last.status();
    if (!last->has_value()) return std::optional<uint64_t>();
    uint64_t seq = 0;
    if (!absl::SimpleAtoi(**last, &seq)) {
      return absl::DataLossError(
          absl::StrCat(store_->path(), " meta/", trade_store::kLastSeqKey, ": not a number"));
    }
    return std::optional<uint64_t>(seq);
  }

  absl::StatusOr<std::vector<security_master::Contract>> Contracts() override {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    std::vector<security_master::Contract> out;
    absl::Status inner;
    absl::Status scan = (*txn)->Scan(
        security_master::kContractsTable, "", [&](absl::string_view key, absl::string_view value) {
          auto c = security_master::ParseContractJson(std::string_view(value.data(), value.size()));
          if (!c.ok()) {
            inner = absl::InvalidArgumentError(absl::StrCat(store_->path(), " ",
                                                            security_master::kContractsTable, "/",
                                                            std::string(key), ": ",
                                                            c.status().message()));
            return false;
          }
          if (c->sym != std::string_view(key.data(), key.size())) {
            inner = absl::DataLossError(
                absl::StrCat(store_->path(), " ", security_master::kContractsTable, "/",
                             std::string(key), ": the row is of '", c->sym, "'"));
            return false;
          }
          out.push_back(*std::move(c));
          return true;
        });
    if (!scan.ok()) return scan;
    if (!inner.ok()) return inner;
    return out;
  }

 private:
  std::unique_ptr<storage::KvStore> store_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TradeSource>> OpenLmdbTradeSource(const std::string& data_dir) {
  auto store = storage::KvStore::Open(data_dir,
                                      storage::KvOptions{.file = kTradeStoreFile, .create = false});
  if (absl::IsNotFound(store.status())) {
    return absl::NotFoundError(absl::StrCat(
        data_dir, " holds no trades (", data_dir, "/", kTradeStoreFile,
        "): not the data dir of an exchange; `cfx serve` and `cfx replay --data-dir` keep "
        "their trades there"));
  }
  if (!store.ok()) return store.status();
  return std::unique_ptr<TradeSource>(new LmdbTradeSource(*std::move(store)));
}

}  // namespace cfx::settlement
