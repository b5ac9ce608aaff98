// FixSession: one QuickFIX initiator session with a queue of what it receives.
#include "cfx/client/fix_session.h"

#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "cfx/gateway/fix_gateway.h"
#include "secret_free_store.h"

namespace cfx {
namespace client {
namespace {

bool MakeDirs(const std::string& path) {
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      const std::string partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace

FIX::Dictionary InitiatorSettings(const FixClientOptions& options, const std::string& dictionary) {
  FIX::Dictionary d;
  d.setString("ConnectionType", "initiator");
  d.setString("SocketConnectHost", options.host);
  d.setInt("SocketConnectPort", options.port);
  d.setInt("HeartBtInt", options.heartbeat_secs);
  d.setInt("ReconnectInterval", 1);
  d.setString("StartTime", "00:00:00");
  d.setString("EndTime", "00:00:00");
  d.setBool("UseDataDictionary", true);
  d.setString("DataDictionary", dictionary);
  d.setString("FileStorePath", options.store_dir);
  d.setBool("SocketNodelay", true);
  d.setBool("ResetOnLogon", options.reset_on_logon);
  d.setBool("CheckLatency", false);  // the exchange checks SendingTime; a client need not
  d.setInt("LogoutTimeout", 2);
  return d;
}

FixSession::FixSession(FixClientOptions options)
    : options_(std::move(options)),
      id_("FIX.4.4", options_.sender_comp_id, options_.target_comp_id) {}

FixSession::~FixSession() { Stop(true); }

void FixSession::SetHandler(Handler handler) { handler_ = std::move(handler); }

absl::Status FixSession::Start() {
  if (initiator_) return absl::FailedPreconditionError("FIX session already started");
  if (options_.store_dir.empty()) return absl::InvalidArgumentError("FIX session: no store_dir");
  if (!MakeDirs(options_.store_dir)) {
    return absl::UnavailableError("FIX session: cannot create " + options_.store_dir);
  }
  std::string dictionary = options_.dictionary_path;
  if (dictionary.empty()) {
    dictionary = options_.store_dir + "/CFX-FIX44.xml";
    absl::Status st = gateway::WriteFixDictionary(dictionary);
    if (!st.ok()) return st;
  }
  try {
    settings_ = FIX::SessionSettings();  // a restart builds its settings anew
    settings_.set(id_, InitiatorSettings(options_, dictionary));
    store_.reset(new SecretFreeStoreFactory(settings_));
    threads_.reset(new InitiatorThreads());
    initiator_.reset(new WatchedInitiator(*this, *store_, settings_, *threads_));
    initiator_->start();
  } catch (const std::exception& e) {
    initiator_.reset();
    return absl::UnavailableError("FIX session " + options_.sender_comp_id + ": " + e.what());
  }
  return absl::OkStatus();
}

bool FixSession::WaitLogon(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return logged_on_; });
}

bool FixSession::WaitLoggedOut(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return !logged_on_; });
}

void FixSession::Logout(std::chrono::milliseconds timeout) {
  if (!initiator_) return;
  try {
    FIX::Session* session = FIX::Session::lookupSession(id_);
    if (session && session->isLoggedOn()) session->logout();
  } catch (const std::exception&) {
    // Stop() below ends the session either way.
  }
  WaitLoggedOut(timeout);
  Stop(true);
}

void FixSession::Stop(bool force) {
  if (!initiator_) return;
  try {
    initiator_->stop(force);
  } catch (const std::exception&) {
    // The connection is gone either way.
  }
  // A connection thread QuickFIX detached may still be calling into the initiator (see
  // initiator_threads.h), and one its reconnect timer started as stop() began is neither
  // joined nor counted until it logs: the session is pending or connected meanwhile. One
  // that has not ended in 5 s is stuck in a way stop() cannot end: keep what it could touch
  // rather than free it under it.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool ended = false;
  while (!(ended = threads_->live() == 0 && initiator_->Idle(id_)) &&
         std::chrono::steady_clock::now() < give_up) {
    threads_->WaitAllEnded(std::chrono::milliseconds(2));
  }
  if (ended) {
    initiator_.reset();
  } else {
    (void)initiator_.release();
    (void)store_.release();
    (void)threads_.release();
  }
  std::lock_guard<std::mutex> lock(mu_);
  logged_on_ = false;
  cv_.notify_all();
}

bool FixSession::logged_on() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logged_on_;
}

std::string FixSession::logout_text() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logout_text_;
}

absl::Status FixSession::Send(FIX::Message& m) {
  try {
    if (!FIX::Session::sendToTarget(m, id_)) {
      return absl::UnavailableError("FIX session " + options_.sender_comp_id + ": send refused");
    }
  } catch (const std::exception& e) {
    return absl::UnavailableError("FIX session " + options_.sender_comp_id + ": " + e.what());
  }
  return absl::OkStatus();
}

bool FixSession::WaitFor(const std::function<bool(const FIX::Message&)>& pred, FIX::Message* out,
                         std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (std::deque<FIX::Message>::iterator it = queue_.begin(); it != queue_.end(); ++it) {
      if (pred(*it)) {
        if (out) *out = *it;
        queue_.erase(it);
        return true;
      }
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
  }
}

std::vector<FIX::Message> FixSession::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::vector<FIX::Message>(queue_.begin(), queue_.end());
}

void FixSession::onLogon(const FIX::SessionID&) {
  std::lock_guard<std::mutex> lock(mu_);
  logged_on_ = true;
  cv_.notify_all();
}

void FixSession::onLogout(const FIX::SessionID&) {
  std::lock_guard<std::mutex> lock(mu_);
  logged_on_ = false;
  cv_.notify_all();
}

void FixSession::toAdmin(FIX::Message& m, const FIX::SessionID&) {
  if (m.getHeader().getField(35) != "A") return;
  if (!options_.password.empty()) m.setField(554, options_.password);
  if (!options_.username.empty()) m.setField(553, options_.username);
}

void FixSession::fromAdmin(const FIX::Message& m,
                           const FIX::SessionID&) throw(FIX::FieldNotFound,
                                                        FIX::IncorrectDataFormat,
                                                        FIX::IncorrectTagValue, FIX::RejectLogon) {
  const std::string type = m.getHeader().getField(35);
  if (type == "5" && m.isSetField(58)) {
    std::lock_guard<std::mutex> lock(mu_);
    logout_text_ = m.getField(58);
    cv_.notify_all();
  } else if (type == "3") {
    Deliver(m);  // a session-level reject answers one of our requests
  }
}

void FixSession::fromApp(const FIX::Message& m,
                         const FIX::SessionID&) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                                      FIX::IncorrectTagValue,
                                                      FIX::UnsupportedMessageType) {
  Deliver(m);
}

void FixSession::Deliver(const FIX::Message& m) {
  if (handler_) {
    handler_(m);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(m);
  cv_.notify_all();
}

}  // namespace client
}  // namespace cfx
