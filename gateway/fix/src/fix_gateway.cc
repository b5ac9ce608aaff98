// FixGateway lifecycle: settings, sequence store, dictionary, acceptor; and the public
// forwarding layer. QuickFIX exceptions stop here and become absl::Status.
#include "cfx/gateway/fix_gateway.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include "fix_acceptor.h"
#include "fix_dictionary.h"
#include "fix_gateway_impl.h"
#include "fix_log.h"

namespace cfx {
namespace gateway {
namespace internal {

std::string UtcNowFix() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  gmtime_r(&tv.tv_sec, &tm);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d%02d%02d-%02d:%02d:%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(tv.tv_usec / 1000));
  return buf;
}

std::string TransactTimeFix(int64_t time_us) {
  if (time_us <= 0) {
    // A reply the gateway makes itself (no exchange time): the wall clock, in the same
    // microsecond format as the exchange's, so that it looks like any other (an order of
    // another firm's account is refused exactly as an unknown one, SPEC §6).
    struct timeval tv;
    gettimeofday(&tv, nullptr);
    time_us = static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
  }
  const time_t secs = static_cast<time_t>(time_us / 1000000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%04d%02d%02d-%02d:%02d:%02d.%06d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(time_us % 1000000));
  return buf;
}

}  // namespace internal

namespace {

// How long Stop() waits for the sessions to answer their Logout (QuickFIX's own bound).
constexpr int kStopGraceMs = 10'000;

// mkdir -p, each folder it makes 0700 whatever the umask (the data dir is private,
// docs/serve.md); true if `path` exists as a directory afterwards.
bool MakeDirs(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0700) == 0) {
        if (chmod(partial.c_str(), 0700) != 0) return false;
      } else if (errno != EEXIST) {
        return false;
      }
    }
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

void internal::MakeFilesPrivate(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d)) {
    const std::string path = dir + "/" + e->d_name;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) != 0) {
      chmod(path.c_str(), 0600);
    }
  }
  closedir(d);
}

absl::Status WriteFixDictionary(const std::string& path) {
  // A temporary name of its own (mkostemp: O_EXCL, 0600), never a file or a link already
  // there: a fixed `<path>.tmp` opened with O_TRUNC followed a link by that name.
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkostemp(&tmp[0], O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError("cannot write " + path +
                                  " (a temporary file beside it): " + std::strerror(errno));
  }
  int err = fchmod(fd, 0600) == 0 ? 0 : errno;
  const std::string text = internal::FixDictionaryText();
  size_t done = 0;
  while (err == 0 && done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    return absl::UnavailableError("cannot write " + path + " (through " + tmp +
                                  "): " + std::strerror(err));
  }
  return absl::OkStatus();
}

FixGateway::Impl::Impl(FixGatewayConfig config, OrderEntry* exchange)
    : config_(std::move(config)),
      exchange_(exchange),
      entitlements_(config_),
      market_data_([this](const std::string& s, uint64_t g, FIX::Message& m) {
        return SendIfCurrent(s, g, m);
      }) {
  // ExecIDs must stay unique across restarts: prefix them with the start time.
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%llx",
                static_cast<unsigned long long>(tv.tv_sec) * 1000000ULL + tv.tv_usec);
  exec_prefix_ = "g" + std::string(buf) + "-";  // never a report of an input's "<seq>-<n>"
  for (const FixSessionSpec& s : config_.sessions) {
    sessions_[s.sender_comp_id].throttle = internal::TokenBucket(s.throttle_msgs_per_sec);
    sessions_[s.sender_comp_id].refusals = internal::TokenBucket(static_cast<int>(std::min<int64_t>(
        INT_MAX, int64_t{kRefusalsPerThrottle} * std::max(s.throttle_msgs_per_sec, 1))));
    held_sends_[s.sender_comp_id].reset(new HeldSends);
  }
}

FixGateway::Impl::~Impl() { Stop(); }

absl::Status FixGateway::Impl::Start() {
  if (acceptor_) return absl::FailedPreconditionError("FIX gateway already started");
  if (config_.sessions.empty()) return absl::InvalidArgumentError("no FIX sessions configured");
  if (config_.port <= 0 || config_.port > 65535) {
    return absl::InvalidArgumentError("fix_port out of range: " + std::to_string(config_.port));
  }
  std::string dir = config_.data_dir + "/fix";
  if (!MakeDirs(dir + "/store") || (config_.message_log && !MakeDirs(dir + "/log"))) {
    return absl::UnavailableError("cannot create " + dir);
  }
  dictionary_path_ = dir + "/CFX-FIX44.xml";
  absl::Status written = WriteFixDictionary(dictionary_path_);
  if (!written.ok()) return written;

  try {
    FIX::Dictionary defaults;
    defaults.setString("ConnectionType", "acceptor");
    defaults.setInt("SocketAcceptPort", config_.port);
    defaults.setBool("SocketReuseAddress", true);
    defaults.setBool("SocketNodelay", true);
    defaults.setString("StartTime", "00:00:00");
    defaults.setString("EndTime", "00:00:00");
    defaults.setInt("HeartBtInt", config_.heartbeat_secs);
    defaults.setBool("UseDataDictionary", true);
    defaults.setString("DataDictionary", dictionary_path_);
    defaults.setBool("ValidateUserDefinedFields", true);
    defaults.setBool("AllowUnknownMsgFields", false);
    defaults.setString("FileStorePath", dir + "/store");
    defaults.setBool("PersistMessages", true);
    // SendingTime accuracy (SPEC §6): a message (a Logon included) whose SendingTime is more
    // than max_latency_secs from our clock is rejected, as QuickFIX's acceptance tests expect.
    defaults.setBool("CheckLatency", config_.max_latency_secs > 0);
    if (config_.max_latency_secs > 0) defaults.setInt("MaxLatency", config_.max_latency_secs);
    defaults.setInt("LogonTimeout", 5);
    settings_.reset(new FIX::SessionSettings());
    settings_->set(defaults);
    for (const FixSessionSpec& s : config_.sessions) {
      FIX::Dictionary d;
      d.setBool("ResetOnLogon", s.reset_on_logon);
      settings_->set(IdOf(s.sender_comp_id), d);
    }
    if (config_.quickfix_file_store) {
      store_.reset(new FIX::FileStoreFactory(*settings_));
    } else {
      store_.reset(new internal::BatchedFileStoreFactory(*settings_));
    }
    internal::AcceptorLimits limits;
    limits.no_delay = true;
    limits.max_connections = config_.max_connections;
    limits.max_connections_per_peer = config_.max_connections_per_peer;
    limits.logon_timeout_ms = config_.logon_timeout_ms;
    limits.max_message_bytes = static_cast<size_t>(config_.max_message_bytes);
    limits.max_messages_per_sec = config_.max_messages_per_sec;
    limits.max_outbound_bytes = static_cast<size_t>(config_.max_outbound_bytes);
    limits.resend_piece_messages = static_cast<size_t>(std::max(1, config_.resend_piece_messages));
    limits.max_bytes_past_gap =
        static_cast<size_t>(std::max<int64_t>(1, config_.max_bytes_past_gap));
    limits.max_resent_per_sec = std::max(1, config_.max_resent_per_sec);
    internal::BoundAcceptor* bound = nullptr;
    if (config_.message_log) {
      log_.reset(new internal::RedactingFileLogFactory(dir + "/log"));
      bound = new internal::BoundAcceptor(*this, *store_, *settings_, *log_,
                                          config_.listen_address, config_.port, limits);
    } else {
      bound = new internal::BoundAcceptor(*this, *store_, *settings_, config_.listen_address,
                                          config_.port, limits);
    }
    acceptor_.reset(bound);
    SetSessionsAlive(true);  // the acceptor made them
    // A refused Logon that asks for a sequence reset must not get one (QuickFIX resets
    // before fromAdmin refuses): decided first, on the connection's thread.
    bound->SetLogonDecisionHook(
        [this](const std::string& logon) { return DecideLogonAhead(logon); });
    bound->SetLogonGateHook(
        [this](const std::string& comp_id, bool begins) { LogonGate(comp_id, begins); });
    bound->SetRefusedLogonHook(
        [this](const std::string& comp_id, const std::string& peer, const std::string& why) {
          // A Logon no session has: a failed Logon, slowed per peer address (SPEC §6); it
          // was counted and audited but not slowed, so CompIDs could be tried at full speed.
          if (why == internal::kUnknownCompIdsReason) logon_guard_.UnknownCompId(comp_id, peer);
          if (why == internal::kMalformedLogonReason) (void)logon_guard_.Refuse(comp_id, peer, why);
          if (!config_.audit) return;
          // A Logon for a session that is logged on: QuickFIX closes the new connection
          // without a word and leaves the live one alone (docs/fix.md).
          if (!why.empty()) {
            Audit("fix_logon", comp_id, peer, "refused", why);
          } else if (IsLoggedOn(comp_id)) {
            Audit("fix_logon", comp_id, peer, "refused", "session already logged on");
          }
        });
    // The sessions' store files are created 0600 (fix_store.cc); QuickFIX's own FileStore
    // (--quickfix-file-store, benchmarks) opens its files with fopen, 0666 less the umask:
    // make them private. A sequence reset re-creates them; toAdmin then does this again
    // (`cfx` itself runs with umask 077, so no window there).
    store_dir_ = dir + "/store";
    ApplyResume();
    internal::MakeFilesPrivate(store_dir_);
    // A session is not connected when its gateway starts, whatever it was before: the
    // process before this one may have died with it logged on (kill -9, a power loss, a
    // failover), and no Logout then cancelled its orders. Cancel-on-disconnect applies now,
    // before any connection is accepted, so the session's next orders come after it
    // (docs/fix.md, "Cancel on disconnect"; the reports wait in the session's store).
    for (const FixSessionSpec& spec : config_.sessions) {
      if (!spec.drop_copy && spec.cancel_on_disconnect) {
        exchange_->Disconnected(SessionDisconnected{spec.sender_comp_id});
      }
    }
    acceptor_->start();
  } catch (const FIX::RuntimeError& e) {
    SetSessionsAlive(false);
    acceptor_.reset();
    return absl::UnavailableError(std::string("FIX acceptor: ") + e.what());
  } catch (const FIX::Exception& e) {
    SetSessionsAlive(false);
    acceptor_.reset();
    return absl::InvalidArgumentError(std::string("FIX settings: ") + e.what());
  } catch (const std::exception& e) {
    SetSessionsAlive(false);
    acceptor_.reset();
    return absl::UnavailableError(std::string("FIX acceptor: ") + e.what());
  }
  return absl::OkStatus();
}

void FixGateway::Impl::Stop() {
  if (!acceptor_) return;
  try {
    // A graceful stop: every session is sent a Logout and given up to kStopGraceMs to answer
    // it. QuickFIX sends the Logout on the session's next tick (up to a second); its own
    // stop() then polls in whole seconds, so a stop whose answer came just after the first
    // second took two. This one ends within 5 ms of the last session's answer.
    for (const FIX::SessionID& id : acceptor_->getSessions()) {
      FIX::Session* session = acceptor_->getSession(id);
      if (session && session->isLoggedOn()) session->logout();
    }
    const auto give_up =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kStopGraceMs);
    while (acceptor_->isLoggedOn() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    acceptor_->stop(/*force=*/true);
  } catch (const std::exception&) {
    // Stopping is best effort: the sockets close with the acceptor either way.
  }
  SetSessionsAlive(false);  // waits for a send in flight
  acceptor_.reset();
  log_.reset();
  store_.reset();
}

void FixGateway::Impl::SetSessionsAlive(bool alive) {
  std::unique_lock<std::shared_timed_mutex> lock(sessions_alive_mu_);
  sessions_alive_ = alive;
}

FIX::SessionID FixGateway::Impl::IdOf(const std::string& session) const {
  return FIX::SessionID("FIX.4.4", config_.target_comp_id, session);
}

bool FixGateway::Impl::SeqNums(const std::string& session, FixSeqNums* out) const {
  if (!entitlements_.Session(session)) return false;
  std::shared_lock<std::shared_timed_mutex> alive(sessions_alive_mu_);
  if (!sessions_alive_) return false;
  FIX::Session* s = FIX::Session::lookupSession(IdOf(session));
  if (!s) return false;
  out->next_sender = s->getExpectedSenderNum();
  out->next_target = s->getExpectedTargetNum();
  return true;
}

bool FixGateway::Impl::IsLoggedOn(const std::string& session) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session);
  return it != sessions_.end() && it->second.logged_on;
}

bool FixGateway::Impl::Send(const std::string& session, FIX::Message& msg) {
  auto found = held_sends_.find(session);
  if (found == held_sends_.end()) return SendNow(session, msg);
  HeldSends& h = *found->second;
  std::lock_guard<std::mutex> lock(h.mu);
  if (h.holding && h.held.size() < kMaxHeldSends) {
    h.held.push_back(msg);
    return true;
  }
  return SendNow(session, msg);
}

void FixGateway::Impl::LogonGate(const std::string& session, bool begins) {
  if (!begins) AuditLogonLeftUnanswered(session);
  auto found = held_sends_.find(session);
  if (found == held_sends_.end()) return;
  HeldSends& h = *found->second;
  if (begins) {
    std::lock_guard<std::mutex> lock(h.mu);
    h.holding = true;
    return;
  }
  // Sent in order, each outside the lock (a send may take a while): what Send holds
  // meanwhile joins the end of the queue, and Send goes direct only once it is empty. A
  // sender that kept the queue growing as fast as this thread sends would keep it here,
  // away from its client: past kDrainUnlocked messages the rest go out under the lock,
  // Send waiting for them.
  constexpr int kDrainUnlocked = 1024;
  for (int sent = 0; sent < kDrainUnlocked; ++sent) {
    FIX::Message next;
    {
      std::lock_guard<std::mutex> lock(h.mu);
      if (h.held.empty()) {
        h.holding = false;
        return;
      }
      next = std::move(h.held.front());
      h.held.pop_front();
    }
    SendHeld(session, next);
  }
  std::lock_guard<std::mutex> lock(h.mu);  // the rest, Send waiting: nothing joins the queue
  while (!h.held.empty()) {
    FIX::Message next = std::move(h.held.front());
    h.held.pop_front();
    SendHeld(session, next);
  }
  h.holding = false;
}

void FixGateway::Impl::SendHeld(const std::string& session, FIX::Message& msg) {
  try {
    SendNow(session, msg);
  } catch (const std::exception&) {
    // QuickFIX stores before it sends: what it threw on is the session's to answer for (a
    // store that cannot be written ends the connection); the rest still go.
  }
}

bool FixGateway::Impl::SendNow(const std::string& session, FIX::Message& msg) {
  std::shared_lock<std::shared_timed_mutex> alive(sessions_alive_mu_);
  if (!sessions_alive_) return false;  // stopped: the sessions are gone
  try {
    return FIX::Session::sendToTarget(msg, IdOf(session));
  } catch (const FIX::SessionNotFound&) {
    return false;
  }
}

bool FixGateway::Impl::HoldsUnstored() {
  // While `holding`, a message may be held, or taken off the queue and not yet stored by
  // QuickFIX (the drain sends outside the lock): holding ends after the last send returned.
  for (const auto& entry : held_sends_) {
    std::lock_guard<std::mutex> lock(entry.second->mu);
    if (entry.second->holding || !entry.second->held.empty()) return true;
  }
  return false;
}

bool FixGateway::Impl::FlushStores() {
  std::shared_lock<std::shared_timed_mutex> alive(sessions_alive_mu_);
  if (!sessions_alive_) return false;  // stopped: what was handed since was not stored
  // QuickFIX's FileStore (--quickfix-file-store) writes each message at once.
  auto* batched = dynamic_cast<internal::BatchedFileStoreFactory*>(store_.get());
  return batched == nullptr || batched->FlushAll();
}

uint64_t FixGateway::Impl::Generation(const std::string& session) {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_[session].generation;
}

bool FixGateway::Impl::SendIfCurrent(const std::string& session, uint64_t generation,
                                     FIX::Message& msg) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(session);
    if (it == sessions_.end() || !it->second.logged_on || it->second.generation != generation) {
      return false;
    }
  }
  return Send(session, msg);
}

std::string FixGateway::Impl::NextExecId() {
  return exec_prefix_ + std::to_string(exec_seq_.fetch_add(1, std::memory_order_relaxed) + 1);
}

FixGateway::Impl::Token FixGateway::Impl::TakeToken(const std::string& session) {
  std::lock_guard<std::mutex> lock(mu_);
  SessionState& state = sessions_[session];
  if (state.throttle.TryTake()) return Token::kTaken;
  return state.refusals.TryTake() ? Token::kThrottled : Token::kOverThrottle;
}

// --- FixGateway: forwards to Impl ----------------------------------------------------------

FixGateway::FixGateway(FixGatewayConfig config, OrderEntry* exchange)
    : impl_(new Impl(std::move(config), exchange)) {}
FixGateway::~FixGateway() { impl_->Stop(); }
absl::Status FixGateway::Start() { return impl_->Start(); }
void FixGateway::ResumeSessions(std::vector<SessionSequences> sequences) {
  impl_->ResumeSessions(std::move(sequences));
}
void FixGateway::Stop() { impl_->Stop(); }
bool FixGateway::SeqNums(const std::string& s, FixSeqNums* out) const {
  return impl_->SeqNums(s, out);
}
bool FixGateway::IsLoggedOn(const std::string& s) const { return impl_->IsLoggedOn(s); }
uint64_t FixGateway::PasswordVerifications() const { return impl_->PasswordVerifications(); }
std::string FixGateway::DictionaryPath() const { return impl_->DictionaryPath(); }
void FixGateway::OnAccepted(const OrderState& o) { impl_->Accepted(o); }
void FixGateway::OnRejected(const OrderState& o, const std::string& r) { impl_->Rejected(o, r); }
void FixGateway::OnFill(const OrderState& o, const Fill& f) { impl_->Filled(o, f); }
void FixGateway::OnCanceled(const OrderState& o, const std::string& r) { impl_->Canceled(o, r); }
void FixGateway::OnReplaced(const OrderState& o) { impl_->Replaced(o); }
void FixGateway::OnCancelRejected(const CancelRejected& r) { impl_->CancelRejectedOut(r); }
void FixGateway::OnTriggered(const OrderState& o) { impl_->Triggered(o); }
void FixGateway::OnStatus(const StatusAnswer& a) { impl_->StatusOut(a); }
void FixGateway::OnMassCancelResult(const MassCancelResult& r) { impl_->MassCancelOut(r); }
void FixGateway::OnBookUpdate(const BookUpdate& b) { impl_->market_data().OnBook(b); }
void FixGateway::OnIdle() { internal::BatchWritesOnThisThread(); }
bool FixGateway::FlushStores() { return impl_->FlushStores(); }
bool FixGateway::HoldsUnstored() { return impl_->HoldsUnstored(); }

void FixGateway::OnPublicTrade(const PublicTrade& t) { impl_->market_data().OnTrade(t); }
void FixGateway::OnSecurityList(const std::vector<ListedContract>& contracts) {
  impl_->market_data().SetContracts(contracts);
}

}  // namespace gateway
}  // namespace cfx
