// In-memory implementations of every HTTP provider (http_providers.h): the fakes of the
// gateway tests and `cfx bench http`, and a stand-in for a backend not yet wired into
// `cfx serve`. Data is set with the Set* methods and returned as is.
//
//   cfx::gateway::InMemoryProviders mem;
//   mem.SetPositions("ALPHA-1", {{.sym = "B200-GOLD-US-202703", .qty = 5}});
//   cfx::gateway::HttpServer server(config, mem.Providers(), {});
#ifndef CFX_GATEWAY_HTTP_MEMORY_PROVIDERS_H_
#define CFX_GATEWAY_HTTP_MEMORY_PROVIDERS_H_

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cfx/gateway/http_providers.h"

namespace cfx::gateway {

// Thread safety: every method may be called from any thread (one mutex).
class InMemoryProviders : public MarginProvider,
                          public PositionProvider,
                          public BookProvider,
                          public ReferenceProvider,
                          public MetricsProvider,
                          public ContractProvider {
 public:
  // All six interfaces pointing at this object.
  HttpProviders Providers();

  void SetMargin(const std::string& account, MarginMethod method, MarginResult result);
  // WhatIf answers: margin = sum over positions of |qty| x `per_contract_micro_usd`,
  // one line per position; a symbol not in SetListed() -> InvalidArgument.
  void SetWhatIfMarginPerContract(int64_t per_contract_micro_usd);
  void SetPositions(const std::string& account, std::vector<PositionLine> lines);
  void SetBook(BookSnapshot snapshot);  // also lists the symbol
  void SetListed(const std::string& sym);
  // Records by date, a date's revisions in order: Fixes() answers the last of each date,
  // Revisions() all of them.
  void SetFixes(const std::string& grade, std::vector<FixRecord> records);
  void SetExplanation(const std::string& grade, const std::string& date, std::string json);
  void SetGauges(std::vector<GaugeSample> gauges);
  // The security master: rows (with their history) by symbol.
  void SetContract(security_master::ContractRecord record);

  // How many provider calls were made (tests check that refused requests reach nothing).
  int64_t calls() const { return calls_.load(); }

  absl::StatusOr<MarginResult> AccountMargin(const std::string& account,
                                             MarginMethod method) override;
  absl::StatusOr<MarginResult> WhatIf(const std::vector<WhatIfPosition>& positions,
                                      MarginMethod method) override;
  absl::StatusOr<std::vector<PositionLine>> Positions(const std::string& account) override;
  absl::StatusOr<BookSnapshot> Book(const std::string& sym, int depth) override;
  absl::StatusOr<std::vector<FixRecord>> Fixes(const common::Grade& grade, common::Date from,
                                               common::Date to) override;
  absl::StatusOr<std::vector<FixRecord>> Revisions(const common::Grade& grade, common::Date from,
                                                   common::Date to) override;
  absl::StatusOr<std::string> Explain(const common::Grade& grade, common::Date date) override;
  std::vector<GaugeSample> Gauges() override;
  absl::StatusOr<std::vector<security_master::Contract>> Contracts() override;
  absl::StatusOr<security_master::ContractRecord> FindContract(const std::string& sym) override;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, MarginMethod>, MarginResult> margins_;
  int64_t whatif_per_contract_ = 1'000'000'000;
  std::map<std::string, std::vector<PositionLine>> positions_;
  std::map<std::string, BookSnapshot> books_;
  std::map<std::string, bool> listed_;
  std::map<std::string, std::vector<FixRecord>> fixes_;
  std::map<std::pair<std::string, std::string>, std::string> explanations_;  // (grade, date)
  std::vector<GaugeSample> gauges_;
  std::map<std::string, security_master::ContractRecord> contracts_;
  std::atomic<int64_t> calls_{0};
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_HTTP_MEMORY_PROVIDERS_H_
