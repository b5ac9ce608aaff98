// FixClient: one QuickFIX initiator session behind a plain C++14 interface.
#include "cfx/client/fix_client.h"

#include <sys/stat.h>

#include <cerrno>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>

#include "cfx/gateway/fix_gateway.h"
#include "cfx/gateway/fix_quickfix.h"

namespace cfx {
namespace client {

namespace internal = gateway::internal;
using gateway::WriteFixDictionary;
namespace {

const char* SideCode(Side side) { return side == Side::kBuy ? "1" : "2"; }

const char* OrdTypeCode(OrdType type) {
  switch (type) {
    case OrdType::kMarket: return "1";
    case OrdType::kLimit: return "2";
    case OrdType::kStop: return "3";
    case OrdType::kStopLimit: return "4";
  }
  return "2";
}

const char* TifCode(TimeInForce tif) {
  switch (tif) {
    case TimeInForce::kDay: return "0";
    case TimeInForce::kGtc: return "1";
    case TimeInForce::kIoc: return "3";
    case TimeInForce::kFok: return "4";
    case TimeInForce::kGtd: return "6";
  }
  return "0";
}

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

bool MakeDirs(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
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

// Thread safety: mu_ guards the queue, counters and logon state; QuickFIX calls the
// Application methods on its session thread.
class FixClient::Impl : public FIX::Application {
 public:
  explicit Impl(FixClientOptions options)
      : options_(std::move(options)),
        id_("FIX.4.4", options_.sender_comp_id, options_.target_comp_id) {}

  ~Impl() override { Stop(); }

  absl::Status Logon(std::chrono::milliseconds timeout) {
    if (options_.store_dir.empty()) return absl::InvalidArgumentError("FixClient: no store_dir");
    if (!MakeDirs(options_.store_dir)) {
      return absl::UnavailableError("FixClient: cannot create " + options_.store_dir);
    }
    std::string dictionary = options_.dictionary_path;
    if (dictionary.empty()) {
      dictionary = options_.store_dir + "/CFX-FIX44.xml";
      absl::Status st = WriteFixDictionary(dictionary);
      if (!st.ok()) return st;
    }
    try {
      FIX::Dictionary d;
      d.setString("ConnectionType", "initiator");
      d.setString("SocketConnectHost", options_.host);
      d.setInt("SocketConnectPort", options_.port);
      d.setInt("HeartBtInt", options_.heartbeat_secs);
      d.setInt("ReconnectInterval", 1);
      d.setString("StartTime", "00:00:00");
      d.setString("EndTime", "00:00:00");
      d.setBool("UseDataDictionary", true);
      d.setString("DataDictionary", dictionary);
      d.setString("FileStorePath", options_.store_dir);
      d.setBool("SocketNodelay", true);
      d.setBool("ResetOnLogon", options_.reset_on_logon);
      d.setBool("CheckLatency", false);
      d.setInt("LogoutTimeout", 2);
      settings_.set(id_, d);
      store_.reset(new FIX::FileStoreFactory(settings_));
      initiator_.reset(new FIX::ThreadedSocketInitiator(*this, *store_, settings_));
      initiator_->start();
    } catch (const std::exception& e) {
      return absl::UnavailableError(std::string("FixClient ") + options_.sender_comp_id + ": " +
                                    e.what());
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return logged_on_; })) {
      std::string why = logout_text_.empty() ? "no Logon answer" : logout_text_;
      lock.unlock();
      Stop();
      return absl::UnavailableError("FIX session " + options_.sender_comp_id + " did not log on (" +
                                    why + ")");
    }
    return absl::OkStatus();
  }

  void Logout(std::chrono::milliseconds timeout) {
    if (!initiator_) return;
    try {
      FIX::Session* session = FIX::Session::lookupSession(id_);
      if (session && session->isLoggedOn()) session->logout();
    } catch (const std::exception&) {
      // Stop() below ends the session either way.
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, timeout, [&] { return !logged_on_; });
    }
    Stop();
  }

  void Stop() {
    if (!initiator_) return;
    try {
      initiator_->stop(true);
    } catch (const std::exception&) {
    }
    initiator_.reset();
    std::lock_guard<std::mutex> lock(mu_);
    logged_on_ = false;
  }

  bool logged_on() const {
    std::lock_guard<std::mutex> lock(mu_);
    return logged_on_;
  }

  absl::Status Send(FIX::Message& m) {
    if (!logged_on()) {
      return absl::FailedPreconditionError("FIX session " + options_.sender_comp_id +
                                           " is not logged on");
    }
    try {
      if (!FIX::Session::sendToTarget(m, id_)) {
        return absl::UnavailableError("FIX session " + options_.sender_comp_id + ": send refused");
      }
    } catch (const std::exception& e) {
      return absl::UnavailableError("FIX session " + options_.sender_comp_id + ": " + e.what());
    }
    return absl::OkStatus();
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

  // FIX::Application
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override {
    std::lock_guard<std::mutex> lock(mu_);
    logged_on_ = true;
    cv_.notify_all();
  }
  void onLogout(const FIX::SessionID&) override {
    std::lock_guard<std::mutex> lock(mu_);
    logged_on_ = false;
    cv_.notify_all();
  }
  void toAdmin(FIX::Message& m, const FIX::SessionID&) override {
    if (m.getHeader().getField(35) != "A") return;
    if (!options_.password.empty()) m.setField(554, options_.password);
    if (!options_.username.empty()) m.setField(553, options_.username);
  }
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::RejectLogon) override {
    const std::string type = m.getHeader().getField(35);
    if (type == "5" && m.isSetField(58)) {
      std::lock_guard<std::mutex> lock(mu_);
      logout_text_ = m.getField(58);
      cv_.notify_all();
    } else if (type == "3") {
      Deliver(Convert(m));  // a session-level reject answers one of our requests
    }
  }
  void fromApp(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {
    Deliver(Convert(m));
  }

 private:
  void Deliver(FixMessage msg) {
    if (callback_) callback_(msg);
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[msg.msg_type];
    if (queueing_) queue_.push_back(std::move(msg));
    cv_.notify_all();
  }

  const FixClientOptions options_;
  const FIX::SessionID id_;
  Callback callback_;  // set before Logon, read-only after
  FIX::SessionSettings settings_;
  std::unique_ptr<FIX::FileStoreFactory> store_;
  std::unique_ptr<FIX::ThreadedSocketInitiator> initiator_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<FixMessage> queue_;
  std::map<std::string, int64_t> counts_;
  bool queueing_ = true;
  bool logged_on_ = false;
  std::string logout_text_;
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
  m.setField(54, SideCode(o.side));
  m.setField(38, std::to_string(o.qty));
  m.setField(40, OrdTypeCode(o.ord_type));
  if (!o.price_text.empty()) {
    m.setField(44, o.price_text);
  } else if (o.price_ticks > 0) {
    m.setField(44, FormatPriceTicks(o.price_ticks));
  }
  if (o.stop_ticks > 0) m.setField(99, FormatPriceTicks(o.stop_ticks));
  m.setField(59, TifCode(o.tif));
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
  m.setField(54, SideCode(side));
  m.setField(60, internal::UtcNowFix());
  return impl_->Send(m);
}

absl::Status FixClient::SendReplace(const FixReplace& r) {
  FIX::Message m = internal::NewMessage("G");
  m.setField(11, r.cl_ord_id);
  m.setField(41, r.orig_cl_ord_id);
  if (!r.account.empty()) m.setField(1, r.account);
  m.setField(55, r.symbol);
  m.setField(54, SideCode(r.side));
  m.setField(40, "2");
  if (r.price_ticks > 0) m.setField(44, FormatPriceTicks(r.price_ticks));
  if (r.qty > 0) m.setField(38, std::to_string(r.qty));
  m.setField(60, internal::UtcNowFix());
  return impl_->Send(m);
}

absl::Status FixClient::SendStatusRequest(const std::string& status_req_id,
                                          const std::string& cl_ord_id,
                                          const std::string& account, const std::string& symbol,
                                          Side side) {
  FIX::Message m = internal::NewMessage("H");
  m.setField(11, cl_ord_id);
  if (!account.empty()) m.setField(1, account);
  m.setField(55, symbol);
  m.setField(54, SideCode(side));
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
