// What the tests of ExchangeOrderEntry over a real core share: the clock, the one product
// they list, a config of firms and accounts, a limit order as the FIX gateway would hand it
// over, and a listener that records the reports the gateway would send.
#ifndef CFX_TESTS_GATEWAY_ORDER_ENTRY_TEST_UTIL_H_
#define CFX_TESTS_GATEWAY_ORDER_ENTRY_TEST_UTIL_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/common/config.h"
#include "cfx/gateway/order_entry.h"

namespace cfx::gateway::order_entry_test {

inline constexpr int64_t kNsPerSec = 1'000'000'000;
inline constexpr int64_t kMarch2027 = 1803859200LL * kNsPerSec;  // Mon 2027-03-01 00:00Z
inline constexpr char kSymbol[] = "B200-GOLD-US-202703";

// B200 gold US (reference 5.000) and, for each (account, firm), the account with 5,000 USD
// of collateral and its firm.
inline common::ExchangeConfig OneGradeConfig(
    const std::vector<std::pair<std::string, std::string>>& accounts) {
  common::ExchangeConfig c;
  common::ProductConfig p;
  p.grade = common::Grade{"B200", common::Tier::kGold, "US"};
  p.ref_ticks = 5000;
  c.products.push_back(p);
  for (const auto& [account, firm] : accounts) {
    bool known = false;
    for (const common::FirmConfig& f : c.firms) known = known || f.id == firm;
    if (!known) c.firms.push_back({firm, firm});
    c.accounts.push_back(common::AccountConfig{account, firm, common::MicroUsd(5'000'000'000)});
  }
  return c;
}

inline NewOrder LimitOrder(const std::string& session, const std::string& account,
                           const std::string& firm, const std::string& id, Side side,
                           int64_t price_ticks, int64_t qty, TimeInForce tif) {
  NewOrder o;
  o.session = session;
  o.account = account;
  o.firm = firm;
  o.cl_ord_id = id;
  o.symbol = kSymbol;
  o.side = side;
  o.ord_type = OrdType::kLimit;
  o.has_price = true;
  o.price_ticks = price_ticks;
  o.qty = qty;
  o.tif = tif;
  return o;
}

// One report as the gateway would send it.
struct Report {
  std::string kind;  // accepted, rejected, fill, canceled, replaced, cancel_rejected, mass
  std::string session, cl, orig, exec_id, reason;
  bool poss_resend = false;
  int64_t time_us = 0;  // TransactTime (0: the time it is sent)
  std::string Key() const {
    return absl::StrCat(kind, " ", session, " ", cl, " ", orig, " ", exec_id, " ", reason);
  }
};

// Every report, in the order the listener was called.
class Recorder : public ExecutionListener {
 public:
  void OnAccepted(const OrderState& o) override { Note("accepted", o, ""); }
  void OnRejected(const OrderState& o, const std::string& reason) override {
    Note("rejected", o, reason);
  }
  void OnFill(const OrderState& o, const Fill&) override { Note("fill", o, ""); }
  void OnCanceled(const OrderState& o, const std::string& reason) override {
    Note("canceled", o, reason);
  }
  void OnReplaced(const OrderState& o) override { Note("replaced", o, ""); }
  void OnCancelRejected(const CancelRejected& r) override {
    Add({"cancel_rejected", r.session, r.cl_ord_id, r.orig_cl_ord_id, "", r.reason, r.poss_resend});
  }
  void OnTriggered(const OrderState& o) override { Note("triggered", o, ""); }
  void OnStatus(const StatusAnswer&) override {}
  void OnMassCancelResult(const MassCancelResult& r) override {
    Add({"mass", r.session, r.cl_ord_id, "", "",
         r.rejected ? r.reason : absl::StrCat(r.canceled_count), r.poss_resend,
         r.transact_time_us});
  }
  void OnBookUpdate(const BookUpdate&) override {}
  void OnPublicTrade(const PublicTrade&) override { public_trades.fetch_add(1); }
  void OnSecurityList(const std::vector<ListedContract>&) override {}
  // As the FIX gateway while a session's Logon is processed, when set.
  bool HoldsUnstored() override { return holds_unstored.load(); }
  std::atomic<bool> holds_unstored{false};

  std::vector<Report> All() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_.size();
  }
  // The last report of `cl_ord_id` as "kind reason" ("" when none yet).
  std::string Last(const std::string& cl_ord_id) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string last;
    for (const Report& r : seen_) {
      if (r.cl == cl_ord_id) last = r.reason.empty() ? r.kind : r.kind + " " + r.reason;
    }
    return last;
  }
  std::string Text() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const Report& r : seen_) out += r.Key() + "; ";
    return out;
  }
  std::atomic<int> public_trades{0};

 private:
  void Note(const char* kind, const OrderState& o, const std::string& reason) {
    Add({kind, o.session, o.cl_ord_id, o.orig_cl_ord_id, o.exec_id, reason, o.poss_resend,
         o.transact_time_us});
  }
  void Add(Report r) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.push_back(std::move(r));
  }
  std::mutex mu_;
  std::vector<Report> seen_;
};

}  // namespace cfx::gateway::order_entry_test

#endif  // CFX_TESTS_GATEWAY_ORDER_ENTRY_TEST_UTIL_H_
