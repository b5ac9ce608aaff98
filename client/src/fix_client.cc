// FixClient: one QuickFIX initiator session behind a plain C++14 interface.
#include "cfx/client/fix_client.h"

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>

#include "cfx/client/fix_session.h"
#include "cfx/gateway/fix_quickfix.h"

namespace cfx {
namespace client {

namespace internal = gateway::internal;
namespace {

void Flatten(const FIX::FieldMap& map, std::map<int, std::string>* out) {
  for (FIX::FieldMap::const_iterator it = map.begin(); it != map.end(); ++it) {
    (*out)[it->getTag()] = it->getString();
  }
}

FixMessage Convert(const FIX::Message& m) {
  FixMessage out;
  Flatten(m.getHeader(), &out.fields);
  Flatten(m, &out.fields);
  out.msg_type = out.Get(35);
  // The messages the gateway sends carry at most one repeating group.
  for (FIX::FieldMap::g_const_iterator g = m.g_begin(); g != m.g_end(); ++g) {
    for (const FIX::FieldMap* entry : g->second) {
      std::map<int, std::string> e;
      Flatten(*entry, &e);
      out.entries.push_back(e);
    }
  }
  return out;
}

}  // namespace

std::string FixMessage::Get(int tag) const {
  std::map<int, std::string>::const_iterator it = fields.find(tag);
  return it == fields.end() ? std::string() : it->second;
}

bool FixMessage::IsExecReport(const std::string& cl_ord_id) const {
  return msg_type == "8" && (cl_ord_id.empty() || Get(11) == cl_ord_id);
}

char FixMessage::exec_type() const {
  std::string t = Get(150);
  return msg_type == "8" && t.size() == 1 ? t[0] : 0;
}

std::string FormatPriceTicks(int64_t ticks) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ticks / 1000),
                static_cast<long long>(ticks % 1000));
  return buf;
}

// The FixSession delivers on its session thread; mu_ guards the queue and counters.
class FixClient::Impl {
 public:
  explicit Impl(FixClientOptions options) : session_(std::move(options)) {
    session_.SetHandler([this](const FIX::Message& m) { Deliver(Convert(m)); });
  }

  absl::Status Logon(std::chrono::milliseconds timeout) {
    absl::Status st = session_.Start();
    if (!st.ok()) return st;
    if (!session_.WaitLogon(timeout)) {
      const std::string text = session_.logout_text();
      session_.Stop(true);
      return absl::UnavailableError("FIX session " + session_.sender() + " did not log on (" +
                                    (text.empty() ? "no Logon answer" : text) + ")");
    }
    return absl::OkStatus();
  }

  void Logout(std::chrono::milliseconds timeout) { session_.Logout(timeout); }
  bool logged_on() const { return session_.logged_on(); }

  absl::Status Send(FIX::Message& m) {
    if (!session_.logged_on()) {
      return absl::FailedPreconditionError("FIX session " + session_.sender() +
                                           " is not logged on");
    }
    return session_.Send(m);
  }

  bool WaitFor(const std::function<bool(const FixMessage&)>& pred, FixMessage* out,
               std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      for (std::deque<FixMessage>::iterator it = queue_.begin(); it != queue_.end(); ++it) {
        if (pred(*it)) {
          if (out) *out = std::move(*it);
          queue_.erase(it);
          return true;
        }
      }
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
    }
  }

  std::vector<FixMessage> TakeAll() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<FixMessage> all(queue_.begin(), queue_.end());
    queue_.clear();
    return all;
  }

  int64_t ReceivedCount(const std::string& type) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, int64_t>::const_iterator it = counts_.find(type);
    return it == counts_.end() ? 0 : it->second;
  }

  void SetCallback(Callback cb) { callback_ = std::move(cb); }
  void SetQueueing(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    queueing_ = on;
  }

 private:
  void Deliver(FixMessage msg) {
    if (callback_) callback_(msg);
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[msg.msg_type];
    if (queueing_) queue_.push_back(std::move(msg));
    cv_.notify_all();
  }

  Callback callback_;  // set before Logon, read-only after
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<FixMessage> queue_;
  std::map<std::string, int64_t> counts_;
  bool queueing_ = true;
  FixSession session_;  // last: stopped (its thread joined) before the members above go
};

FixClient::FixClient(FixClientOptions options) : impl_(new Impl(std::move(options))) {}

FixClient::~FixClient() { impl_->Logout(std::chrono::milliseconds(1000)); }

void FixClient::SetCallback(Callback callback) { impl_->SetCallback(std::move(callback)); }
void FixClient::SetQueueing(bool on) { impl_->SetQueueing(on); }

absl::Status FixClient::Logon(std::chrono::milliseconds timeout) { return impl_->Logon(timeout); }
void FixClient::Logout(std::chrono::milliseconds timeout) { impl_->Logout(timeout); }
bool FixClient::logged_on() const { return impl_->logged_on(); }

absl::Status FixClient::SendOrder(const FixOrder& o) {
  if (o.cl_ord_id.empty() || o.symbol.empty() || o.qty <= 0) {
    return absl::InvalidArgumentError("FixClient: order needs cl_ord_id, symbol and qty > 0");
  }
  FIX::Message m = internal::NewMessage("D");
  m.setField(11, o.cl_ord_id);
  if (!o.account.empty()) m.setField(1, o.account);
  m.setField(55, o.symbol);
  m.setField(54, internal::SideCode(o.side));
  m.setField(38, std::to_string(o.qty));
  m.setField(40, internal::OrdTypeCode(o.ord_type));
  if (!o.price_text.empty()) {
    m.setField(44, o.price_text);
  } else if (o.price_ticks > 0) {
    m.setField(44, FormatPriceTicks(o.price_ticks));
  }
  if (o.stop_ticks > 0) m.setField(99, FormatPriceTicks(o.stop_ticks));
  m.setField(59, internal::TifCode(o.tif));
  if (!o.expire_time.empty()) m.setField(126, o.expire_time);
  if (o.post_only) m.setField(18, "6");
  if (o.display_qty > 0) m.setField(111, std::to_string(o.display_qty));
  if (!o.stp_id.empty()) m.setField(7928, o.stp_id);
  m.setField(60, internal::UtcNowFix());
  return impl_->Send(m);
}

absl::Status FixClient::SendCancel(const std::string& cl_ord_id, const std::string& orig,
                                   const std::string& account, const std::string& symbol,
                                   Side side) {
  FIX::Message m = internal::NewMessage("F");
  m.setField(11, cl_ord_id);
  m.setField(41, orig);
  if (!account.empty()) m.setField(1, account);
  m.setField(55, symbol);
  m.setField(54, internal::SideCode(side));
  m.setField(60, internal::UtcNowFix());
  return impl_->Send(m);
}

absl::Status FixClient::SendReplace(const FixReplace& r) {
  FIX::Message m = internal::NewMessage("G");
  m.setField(11, r.cl_ord_id);
  m.setField(41, r.orig_cl_ord_id);
  if (!r.account.empty()) m.setField(1, r.account);
  m.setField(55, r.symbol);
  m.setField(54, internal::SideCode(r.side));
  m.setField(40, internal::OrdTypeCode(r.ord_type));
  if (r.price_ticks > 0) m.setField(44, FormatPriceTicks(r.price_ticks));
  if (r.qty > 0) m.setField(38, std::to_string(r.qty));
  m.setField(60, internal::UtcNowFix());
  return impl_->Send(m);
}

absl::Status FixClient::SendStatusRequest(const std::string& status_req_id,
                                          const std::string& cl_ord_id, const std::string& account,
                                          const std::string& symbol, Side side) {
  FIX::Message m = internal::NewMessage("H");
  m.setField(11, cl_ord_id);
  if (!account.empty()) m.setField(1, account);
  m.setField(55, symbol);
  m.setField(54, internal::SideCode(side));
  m.setField(790, status_req_id);
  return impl_->Send(m);
}

absl::Status FixClient::SubscribeMarketData(const std::string& md_req_id,
                                            const std::vector<std::string>& symbols, int depth) {
  FIX::Message v = internal::NewMessage("V");
  v.setField(262, md_req_id);
  v.setField(263, "1");
  v.setField(264, std::to_string(depth));
  for (const char* t : {"0", "1", "2"}) {
    FIX::Group g(267, 269);
    g.setField(269, t);
    v.addGroup(g);
  }
  for (const std::string& sym : symbols) {
    FIX::Group s(146, 55);
    s.setField(55, sym);
    v.addGroup(s);
  }
  return impl_->Send(v);
}

bool FixClient::WaitFor(const std::function<bool(const FixMessage&)>& pred, FixMessage* out,
                        std::chrono::milliseconds timeout) {
  return impl_->WaitFor(pred, out, timeout);
}

std::vector<FixMessage> FixClient::TakeAll() { return impl_->TakeAll(); }

int64_t FixClient::ReceivedCount(const std::string& type) const {
  return impl_->ReceivedCount(type);
}

}  // namespace client
}  // namespace cfx
