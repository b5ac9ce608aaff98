// DemoSession: a trading firm's FIX session and what its reports say (demo_session.h).
#include "demo_session.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "demo_credentials.h"

namespace cfx::demo {
namespace {

int64_t ToInt(const std::string& s) { return s.empty() ? 0 : std::strtoll(s.c_str(), nullptr, 10); }

// "5.400" -> 5400. The gateway always sends 3 decimals; anything else is read leniently.
int64_t ToTicks(const std::string& s) {
  const size_t dot = s.find('.');
  int64_t whole = std::strtoll(s.substr(0, dot).c_str(), nullptr, 10);
  int64_t frac = 0;
  if (dot != std::string::npos) {
    std::string f = (s.substr(dot + 1) + "000").substr(0, 3);
    frac = std::strtoll(f.c_str(), nullptr, 10);
  }
  return whole * 1000 + frac;
}

}  // namespace

DemoSession::DemoSession(const common::SessionConfig& session, std::vector<std::string> accounts,
                         const std::string& store_dir, const std::atomic<bool>* in_closing_window)
    : config_(session),
      name_(session.sender_comp_id),
      firm_(session.firm),
      accounts_(std::move(accounts)),
      store_dir_(store_dir),
      in_closing_window_(in_closing_window) {}

absl::Status DemoSession::Connect(int port, bool keep_sequence) {
  if (client_) client_->Logout();
  FixClientOptions options;
  options.sender_comp_id = config_.sender_comp_id;
  options.port = port;
  options.password = DemoPassword(config_.sender_comp_id);
  options.username = config_.username;
  options.store_dir = store_dir_ + "/" + config_.sender_comp_id;
  options.reset_on_logon = !keep_sequence;
  client_ = std::make_unique<FixClient>(options);
  client_->SetQueueing(false);  // everything is handled in the callback
  client_->SetCallback([this](const FixMessage& m) { OnMessage(m); });
  return client_->Logon(std::chrono::seconds(10));
}

void DemoSession::Logout() {
  if (client_) client_->Logout();
}

std::string DemoSession::NextId() {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s-%06lld", name_.c_str(), static_cast<long long>(++next_id_));
  return buf;
}

absl::Status DemoSession::Order(const FixOrder& order) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.insert(order.cl_ord_id);
    sent_[order.cl_ord_id] =
        LiveOrder{order.account, order.symbol, order.side, order.price_ticks, order.qty,
                  order.ord_type == OrdType::kStop || order.ord_type == OrdType::kStopLimit};
  }
  return client_->SendOrder(order);
}

absl::Status DemoSession::Cancel(const std::string& cl, const std::string& orig,
                                 const std::string& symbol) {
  LiveOrder o;
  o.symbol = symbol;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(orig);
    if (it != live_.end()) o = it->second;
    pending_.insert(cl);
  }
  return client_->SendCancel(cl, orig, o.account.empty() ? accounts_.front() : o.account, o.symbol,
                             o.side);
}

absl::Status DemoSession::Replace(const FixReplace& replace) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.insert(replace.cl_ord_id);
  }
  return client_->SendReplace(replace);
}

absl::Status DemoSession::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return pending_.empty(); })) {
    return absl::DeadlineExceededError(name_ + ": " + std::to_string(pending_.size()) +
                                       " requests unanswered, first " + *pending_.begin() +
                                       (last_session_reject_.empty()
                                            ? std::string()
                                            : "; last session reject: " + last_session_reject_));
  }
  return absl::OkStatus();
}

absl::Status DemoSession::Barrier(std::chrono::milliseconds timeout) {
  if (absl::Status s = WaitIdle(timeout); !s.ok()) return s;
  if (absl::Status s = StartBarrier(); !s.ok()) return s;
  return WaitIdle(timeout);
}

absl::Status DemoSession::StartBarrier() {
  const std::string id = "sync-" + std::to_string(++barrier_n_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.insert(id);
  }
  return client_->SendStatusRequest(id, id, accounts_.front(), "B200-GOLD-US-202703", Side::kBuy);
}

std::vector<std::pair<std::string, LiveOrder>> DemoSession::LiveOrders() {
  std::lock_guard<std::mutex> lock(mu_);
  return {live_.begin(), live_.end()};
}

std::map<std::string, int64_t> DemoSession::Positions() {
  std::lock_guard<std::mutex> lock(mu_);
  return positions_;
}

std::string DemoSession::LastFilled() {
  std::lock_guard<std::mutex> lock(mu_);
  return last_filled_;
}

SessionCounts DemoSession::Counts() {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

void DemoSession::OnMessage(const FixMessage& m) {
  if (m.msg_type == "8") {
    OnExecReport(m);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_.received[m.msg_type];
  if (m.msg_type == "9") {
    ++counts_.cancel_rejects[m.Get(58).empty() ? "unknown" : m.Get(58)];
    pending_.erase(m.Get(11));
  } else if (m.msg_type == "j") {
    ++counts_.rejects["business_reject:" + m.Get(58)];
    pending_.erase(m.Get(379));
  } else if (m.msg_type == "Y") {
    ++counts_.md_rejects[m.Get(58)];
  } else if (m.msg_type == "3") {
    ++counts_.rejects["session_reject:" + m.Get(58)];
    last_session_reject_ = m.Get(58) + " (tag " + m.Get(371) + ", seq " + m.Get(45) + ")";
  }
  cv_.notify_all();
}

void DemoSession::OnExecReport(const FixMessage& m) {
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_.received["8"];
  const char type = m.exec_type();
  const std::string cl = m.Get(11);
  if (type == 'I') {  // a status answer: our barrier
    pending_.erase(m.Get(790));
    cv_.notify_all();
    return;
  }
  ++counts_.exec_reports;
  pending_.erase(cl);
  switch (type) {
    case '0': {  // new: the order rests (or is a pending stop) until told otherwise
      auto it = sent_.find(cl);
      if (it != sent_.end()) {
        if (ToInt(m.Get(151)) > 0) live_[cl] = it->second;
        sent_.erase(it);
      }
      break;
    }
    case '8':
      ++counts_.rejects[m.Get(58).empty() ? "unknown" : m.Get(58)];
      sent_.erase(cl);
      break;
    case 'F': {
      const int64_t qty = ToInt(m.Get(32));
      ++counts_.fills;
      counts_.fill_qty += qty;
      if (in_closing_window_->load(std::memory_order_acquire)) ++counts_.closing_fills;
      ++counts_.fills_by_symbol[m.Get(55)];
      counts_.qty_by_symbol[m.Get(55)] += qty;
      positions_[m.Get(55)] += m.Get(54) == "2" ? -qty : qty;
      if (m.Get(39) == "2") last_filled_ = cl;
      auto it = live_.find(cl);
      if (it != live_.end()) it->second.leaves = ToInt(m.Get(151));
      break;
    }
    case '4':
    case 'C':
      ++counts_.cancels_by_reason[type == 'C' ? "expired" : m.Get(58).empty() ? "user" : m.Get(58)];
      live_.erase(m.Get(41));
      break;
    case '5': {
      auto it = live_.find(m.Get(41));
      if (it != live_.end()) {
        LiveOrder o = it->second;
        live_.erase(it);
        if (m.Has(44)) o.price_ticks = ToTicks(m.Get(44));
        o.leaves = ToInt(m.Get(151));
        if (o.leaves > 0) live_[cl] = o;
      }
      break;
    }
    default:
      break;
  }
  // Whatever the report, an order whose status says it ended is no longer live.
  const std::string status = m.Get(39);
  if (status == "2" || status == "4" || status == "8" || status == "C" ||
      (m.Has(151) && ToInt(m.Get(151)) == 0 && type != '5')) {
    live_.erase(cl);
    sent_.erase(cl);
  }
  cv_.notify_all();
}

}  // namespace cfx::demo
