#include "cfx/gateway/exchange_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/audit/audit_log.h"
#include "cfx/audit/refusal_throttle.h"
#include "cfx/common/free_port.h"
#include "cfx/common/secret_file.h"
#include "cfx/concurrency/thread_name.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/gateway/exchange_order_entry.h"
#include "cfx/gateway/fix_config.h"
#include "cfx/gateway/fix_gateway.h"
#include "cfx/replication/jetstream_log.h"
#include "cfx/replication/lease.h"
#include "cfx/replication/lease_keeper.h"
#include "cfx/storage/private_files.h"
#include "data_dir_checks.h"
#include "file_limit.h"
#include "serve_http.h"

namespace cfx::gateway {
namespace {

using internal::LockDataDir;
using internal::PrepareDataDir;

// Hands the risk desk's per-contract margins (micro-USD) and band references (ticks), read
// from the settlement data as plain numbers, to the exchange core in its unit types.
absl::Status SendRiskData(exchange::ExchangeCore* core,
                          const std::map<std::string, int64_t>& margin_micro_usd,
                          const std::map<std::string, int64_t>& band_ref_ticks) {
  std::map<std::string, engine::MicroUsd> margins;
  for (const auto& [sym, v] : margin_micro_usd) margins.emplace(sym, engine::MicroUsd(v));
  std::map<std::string, engine::PriceTicks> refs;
  for (const auto& [sym, v] : band_ref_ticks) refs.emplace(sym, engine::PriceTicks(v));
  return core->RefreshMargins(margins, refs);
}

// The margins of the pre-trade check: the risk desk's, and for each listed contract it has no
// price for (no settlement, no fix, no config `ref`) MatcherOptions::kNoPriceMargin, so an
// order that raises the exposure in it is refused instead of taken at a margin of 0.
std::map<std::string, int64_t> WithUnpricedRefused(std::map<std::string, int64_t> margins,
                                                   const std::vector<std::string>& listed) {
  for (const std::string& sym : listed) {
    margins.try_emplace(sym, exchange::MatcherOptions::kNoPriceMargin.value());
  }
  return margins;
}

}  // namespace

class ExchangeServer::Impl {
 public:
  Impl(common::ExchangeConfig config, ExchangeServerOptions options)
      : config_(std::move(config)), options_(std::move(options)) {
    if (!options_.data_dir.empty()) config_.data_dir = options_.data_dir;
    if (options_.fix_port >= 0) config_.fix_port = options_.fix_port;
    if (options_.http_port >= 0) config_.http_port = options_.http_port;
  }

  // What would make the start fail after the journal has taken the listing, checked first:
  // a failed start writes nothing (a `--init` that failed on a busy port left an initialised
  // data dir, and the next `--init` was refused). The listening ports are probed (bound and
  // let go); a port taken between the probe and the start still fails the start later.
  absl::Status Preflight() const {
    if (options_.role != ServeRole::kAlone && config_.replication.servers.empty()) {
      return absl::InvalidArgumentError(
          "--role primary|standby needs a [replication] section with the NATS servers");
    }
    if (config_.sessions.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          options_.config_path.empty() ? "the config" : options_.config_path,
          ": no [[sessions]]: an exchange needs at least one FIX session (docs/config.md)"));
    }
    if (config_.fix_port != 0 && config_.fix_port == config_.http_port &&
        options_.role == ServeRole::kAlone) {
      return absl::InvalidArgumentError(absl::StrCat("the FIX and HTTP ports are both ",
                                                     config_.fix_port, ": give each its own"));
    }
    const std::string& address = config_.listen_address;
    unsigned char probe_addr[sizeof(in6_addr)];
    const bool v6 = address.find(':') != std::string::npos;
    if (::inet_pton(v6 ? AF_INET6 : AF_INET, address.c_str(), probe_addr) != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("listen_address '", address, "': not a numeric IPv4 or IPv6 address"));
    }
    std::vector<std::pair<const char*, int>> ports = {{"HTTP", config_.http_port}};
    if (options_.role == ServeRole::kAlone) ports.push_back({"FIX", config_.fix_port});
    for (const auto& [name, port] : ports) {
      if (port < 0 || port > 65535) {
        return absl::InvalidArgumentError(absl::StrCat(name, " port ", port, " out of range"));
      }
      if (port == 0) continue;  // any free port
      const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) continue;  // no socket to probe with: the start will say
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      int rc;
      if (v6) {
        sockaddr_in6 sa{};
        sa.sin6_family = AF_INET6;
        std::memcpy(&sa.sin6_addr, probe_addr, sizeof(in6_addr));
        sa.sin6_port = htons(static_cast<uint16_t>(port));
        rc = ::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
      } else {
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        std::memcpy(&sa.sin_addr, probe_addr, sizeof(in_addr));
        sa.sin_port = htons(static_cast<uint16_t>(port));
        rc = ::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
      }
      const int err = errno;
      ::close(fd);
      if (rc != 0) {
        return absl::UnavailableError(absl::StrCat("cannot listen on ", address, ":", port, " (",
                                                   name, "): ", std::strerror(err)));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Start() {
    if (started_) return absl::FailedPreconditionError("exchange server already started");
    // A Start after a failed one begins afresh: its Stop left these set (until 2026-12-07 the
    // refresher then ended at once, every promotion was abandoned, and a clean stop was
    // audited as the failed start's).
    {
      std::lock_guard<std::mutex> lock(refresh_mu_);
      stop_refresh_ = false;
    }
    abandon_promotion_.store(false, std::memory_order_release);
    deposed_.store(false, std::memory_order_release);
    start_failure_.clear();
    if (absl::Status s = Preflight(); !s.ok()) return s;
    // Before any connection bound can act, the descriptors to reach it (until 2026-12-07 the
    // default bounds needed more than the usual soft limit of 1,024, and a flood of idle
    // connections ran the process out before its bounds closed any: a review).
    if (absl::Status s = internal::RaiseFileLimit(
            config_, options_.config_path.empty() ? "the config" : options_.config_path);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = PrepareDataDir(config_.data_dir, options_.data_dir_mode); !s.ok()) {
      return s;
    }
    if (data_dir_lock_.fd < 0) {  // a Start after a failed one holds it already
      absl::StatusOr<int> lock = LockDataDir(config_.data_dir);
      if (!lock.ok()) return lock.status();
      data_dir_lock_.fd = *lock;
    }
    auto audit_log = audit::AuditLog::Open(config_.data_dir + "/audit.log");
    if (!audit_log.ok()) return audit_log.status();
    audit_ = *std::move(audit_log);
    // The settlement terms this exchange runs with, for `cfx settle` without --config
    // (holidays, collateral, psr, the surveillance threshold: docs/settlement.md).
    if (absl::Status s = storage::WritePrivateFile(common::SettlementTermsPath(config_.data_dir),
                                                   common::SettlementTermsToml(config_));
        !s.ok()) {
      return s;
    }
    audit_->Record("config_load", {{"command", "serve"},
                                   {"path", options_.config_path},
                                   {"data_dir", config_.data_dir},
                                   {"firms", std::to_string(config_.firms.size())},
                                   {"accounts", std::to_string(config_.accounts.size())},
                                   {"sessions", std::to_string(config_.sessions.size())},
                                   {"tokens", std::to_string(config_.tokens.size())}});
    exchange::ExchangeOptions core_options;
    core_options.data_dir = config_.data_dir;
    core_options.clock =
        options_.manual_clock ? exchange::ClockMode::kManual : exchange::ClockMode::kWall;
    core_options.start_time = options_.start_time;
    core_options.pre_trade_risk = options_.pre_trade_risk;
    core_options.unsafe_no_sync = options_.unsafe_no_sync;
    core_options.commit_log = options_.commit_log;
    core_options.publisher_thread = options_.publisher_thread;
    core_options.matcher_thread_only = options_.matcher_thread_only;
    core_options.trace_stages = options_.trace_stages;
    if (options_.role != ServeRole::kAlone) {
      if (absl::Status s = OpenReplication(); !s.ok()) return Fail("replication", s);
      core_options.replication = log_.get();
    }
    core_ = std::make_unique<exchange::ExchangeCore>(config_, core_options);
    journal_watch_.impl = this;
    core_->AddListener(&journal_watch_);
    std::vector<std::string> sessions;
    for (const common::SessionConfig& s : config_.sessions) sessions.push_back(s.sender_comp_id);
    entry_ = std::make_unique<ExchangeOrderEntry>(core_.get(), sessions);
    auto recovery = core_->Start();
    if (!recovery.ok()) return Fail("exchange core", recovery.status());
    recovery_ = *std::move(recovery);
    started_ = true;
    // The listing (ProductCmds) is sequenced like any input: wait until it is published so
    // that the margin basis, the pre-trade margins and the security list see every symbol.
    if (absl::Status s = core_->Flush(); !s.ok()) return Fail("exchange core", s);

    audit_->Record("serve_start", {{"recovery", recovery_.fresh ? "fresh" : "recovered"},
                                   {"next_seq", std::to_string(recovery_.next_seq)},
                                   {"role", RoleName()}});
    http_ = internal::MakeServeHttp(core_.get(), config_, audit_.get(), [this] {
      // SPEC §6: failed logons are counted (and logged, and slowed: docs/fix.md).
      auto g = [](const char* name, const char* help, const std::atomic<uint64_t>& v) {
        return GaugeSample{name, help, {}, static_cast<double>(v.load(std::memory_order_relaxed))};
      };
      return std::vector<GaugeSample>{
          g("cfx_fix_logons_accepted", "FIX Logons accepted since start", logons_accepted_),
          g("cfx_fix_logons_refused",
            "FIX Logons refused since start (wrong password, back-off, unknown CompID, ...)",
            logons_refused_)};
    });
    if (absl::Status s = http_->StartProviders(); !s.ok()) return Fail("margin basis", s);
    if (options_.role == ServeRole::kAlone) {
      if (absl::Status s = StartOrderPorts(); !s.ok()) return s;
      if (absl::Status s = http_->StartServer(); !s.ok()) return Fail("HTTP", s);
      return absl::OkStatus();
    }
    // Replicated: HTTP now (read-only while a standby), the order ports once leading.
    if (absl::Status s = http_->StartServer(); !s.ok()) return Fail("HTTP", s);
    keeper_ = std::make_unique<replication::LeaseKeeper>(
        lease_.get(), log_.get(),
        replication::LeaseKeeper::Callbacks{
            .on_acquired = [this] { return BecomeLeader(); },
            .on_lost = [this](const absl::Status& why) { Depose(why); }});
    keeper_->Start();
    if (options_.role == ServeRole::kPrimary &&
        !WaitLeading(3 * static_cast<int64_t>(config_.replication.lease_ttl_ms) + 30000)) {
      return Fail("replication", absl::FailedPreconditionError(
                                     "--role primary: did not take the leadership lease (another "
                                     "node holds it; start this one as a standby)"));
    }
    return absl::OkStatus();
  }

  const char* RoleName() const {
    return options_.role == ServeRole::kAlone     ? "alone"
           : options_.role == ServeRole::kPrimary ? "primary"
                                                  : "standby";
  }

  absl::Status OpenReplication() {
    const common::ReplicationConfig& rc = config_.replication;
    if (rc.servers.empty()) {
      return absl::InvalidArgumentError(
          "--role primary|standby needs a [replication] section with the NATS servers");
    }
    replication::NatsOptions o;
    o.servers = rc.servers;
    o.stream = rc.stream;
    o.subject = rc.subject;
    o.replicas = rc.replicas;
    o.timeout_ms = rc.timeout_ms;
    o.lease_bucket = rc.lease_bucket;
    o.lease_ttl_ms = rc.lease_ttl_ms;
    o.node_id = rc.node_id;
    if (!rc.user.empty()) {
      absl::StatusOr<std::string> password = common::ReadSecretFile(rc.password_file);
      if (!password.ok()) {
        return absl::Status(password.status().code(), absl::StrCat("[replication] password_file: ",
                                                                   password.status().message()));
      }
      o.user = rc.user;
      o.password = *std::move(password);
    }
    if (o.node_id.empty()) {
      char host[256] = {};
      gethostname(host, sizeof(host) - 1);
      o.node_id = absl::StrCat(host, ":", config_.data_dir);
    }
    auto log = replication::JetStreamLog::Open(o);
    if (!log.ok()) return log.status();
    log_ = std::move(*log);
    auto lease = replication::Lease::Open(o);
    if (!lease.ok()) return lease.status();
    lease_ = std::move(*lease);
    return absl::OkStatus();
  }

  // The keeper's promotion thread, once the lease is ours (the keeper renews it meanwhile):
  // the core reads the log to its end and sequences; then the risk data and the FIX port.
  absl::Status BecomeLeader() {
    // However far behind, a standby that keeps reading the log goes on (the keeper renews
    // the lease meanwhile); a stop abandons it.
    if (absl::Status s = core_->Promote(kPromoteStallMs, &abandon_promotion_); !s.ok()) return s;
    // The keeper may have lost the lease meanwhile, or the server be stopping.
    auto still_leading = [&]() -> absl::Status {
      if (deposed_.load(std::memory_order_acquire)) {
        return absl::FailedPreconditionError("the lease was lost during the promotion");
      }
      if (abandon_promotion_.load(std::memory_order_acquire)) {
        return absl::CancelledError("the server stops");
      }
      return absl::OkStatus();
    };
    if (absl::Status s = still_leading(); !s.ok()) return s;
    if (absl::Status s = StartOrderPorts(); !s.ok()) return s;
    if (absl::Status s = still_leading(); !s.ok()) return s;  // the ports close at the stop
    audit_->Record("serve_lead", {{"lease_revision", std::to_string(keeper_->revision())},
                                  {"next_seq", std::to_string(core_->Stats().next_seq)}});
    std::cerr << "cfx serve: leading (lease revision " << keeper_->revision()
              << "), fix=" << config_.fix_port << std::endl;
    order_ports_open_.store(true, std::memory_order_release);
    std::lock_guard<std::mutex> lock(role_mu_);
    role_cv_.notify_all();
    return absl::OkStatus();
  }

  void Depose(const absl::Status& why) {
    if (deposed_.exchange(true, std::memory_order_acq_rel)) return;
    audit_->Record("serve_deposed", {{"reason", std::string(why.message())}});
    std::cerr << "cfx serve: leadership lost, this node stops sequencing: " << why << std::endl;
    std::lock_guard<std::mutex> lock(role_mu_);
    role_cv_.notify_all();
  }

  bool WaitLeading(int64_t timeout_ms) const {
    std::unique_lock<std::mutex> lock(role_mu_);
    role_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [&] { return IsLeading() || deposed_.load(std::memory_order_acquire); });
    return IsLeading();
  }
  bool IsLeading() const {
    if (options_.role == ServeRole::kAlone) return started_;
    return order_ports_open_.load(std::memory_order_acquire) && keeper_->leading() &&
           !deposed_.load(std::memory_order_acquire);
  }

  // The pre-trade margins (and their refresher) and the FIX acceptor: what takes orders.
  absl::Status StartOrderPorts() {
    // The band references (SPEC §3: prior settlement, else the latest fix) with or without
    // the margin check; the margins only with it.
    {
      std::map<std::string, int64_t> margins;
      if (options_.pre_trade_risk) {
        auto m = http_->PerContractMargins();
        if (!m.ok()) return Fail("pre-trade margins", m.status());
        margins = WithUnpricedRefused(*std::move(m), core_->ListedSymbols());
      }
      auto refs = http_->BandReferences();
      if (!refs.ok()) return Fail("band references", refs.status());
      if (absl::Status s = SendRiskData(core_.get(), margins, *refs); !s.ok()) {
        return Fail("pre-trade margins", s);
      }
      sent_margins_ = std::move(margins);
      sent_refs_ = *std::move(refs);
      refresher_ = concurrency::NamedThread("cfx-margins", [this] { RefreshLoop(); });
    }

    if (config_.fix_port == 0) {
      auto port = common::PickFreeLoopbackPort();  // QuickFIX cannot report its port
      if (!port.ok()) return Fail("FIX", port.status());
      config_.fix_port = *port;
    }
    FixGatewayConfig fix_config = FixGatewayConfigFromExchange(config_);
    fix_config.message_log = options_.fix_message_log;
    fix_config.quickfix_file_store = options_.quickfix_file_store;
    // Refused logons are as cheap for a client to make as connections, so they are
    // throttled like the HTTP refusals (docs/audit.md); accepted ones and logouts are not.
    fix_config.audit = [this, log = audit_.get(),
                        throttle = &fix_refusals_](const FixSessionEvent& e) {
      if (e.kind == "fix_logon") {
        (e.result == "refused" ? logons_refused_ : logons_accepted_)
            .fetch_add(1, std::memory_order_relaxed);
      }
      uint64_t suppressed = 0;
      if (e.kind == "fix_logout") {
        log->Record(e.kind, {{"comp_id", e.comp_id}, {"peer", e.peer}});
      } else if (e.result != "refused") {
        log->Record(
            e.kind,
            {{"comp_id", e.comp_id}, {"peer", e.peer}, {"result", e.result}, {"reason", e.reason}});
      } else if (throttle->Admit(&suppressed)) {
        log->Record(e.kind, {{"comp_id", e.comp_id},
                             {"peer", e.peer},
                             {"result", e.result},
                             {"reason", e.reason},
                             {"suppressed", std::to_string(suppressed)}});
      }
    };
    // Replicated: the sessions' sequence numbers travel in the stream (docs/replication.md,
    // "FIX sessions"), and a node that takes over resumes each session where the stream
    // left it.
    fix_config.record_sequences = options_.role != ServeRole::kAlone;
    fix_ = std::make_unique<FixGateway>(fix_config, entry_.get());
    if (options_.role != ServeRole::kAlone) {
      // Resumed where the stream left each session, with a reserve past that sequenced first.
      std::vector<SessionSequences> resume = entry_->ResumeSequences();
      if (absl::Status s = entry_->ReserveSenderSequences(resume); !s.ok()) {
        return Fail("FIX sequence numbers", s);
      }
      fix_->ResumeSessions(std::move(resume));
    }
    entry_->SetListener(fix_.get());
    // The reports a crash (or a failover) kept from going out are sent at this start: one
    // node follows them with a file (docs/durability.md), a replicated one with a mark in
    // its stream, which the node that takes over reads (docs/replication.md).
    if (options_.role == ServeRole::kAlone) {
      entry_->SetReportedFile(config_.data_dir + "/fix/reported", recovery_.next_seq - 1);
    } else {
      entry_->SetReportsFromStream(core_->Stats().next_seq - 1);  // promoted: the stream's end
    }
    if (absl::Status s = entry_->Start(); !s.ok()) return Fail("FIX", s);
    if (absl::Status s = fix_->Start(); !s.ok()) return Fail("FIX", s);
    if (absl::Status s = entry_->StartReports(); !s.ok()) return Fail("FIX", s);
    return absl::OkStatus();
  }

  // SPEC §4: per-contract margins are refreshed after each settlement. `cfx settle` runs
  // in another process, so the ledger is polled; a changed basis is sent to the core as
  // sequenced ProductCmds (replay takes the same decisions). A month listed at the roll
  // changes the basis too (CoreHttpProviders): within a poll it trades on SPEC §3's band
  // reference and the margin check counts it, not on the config's `ref` and a margin of 0
  // until the next settlement. A poll that finds nothing changed reads the ledger's last
  // date and compares two small maps.
  void RefreshLoop() {
    std::unique_lock<std::mutex> lock(refresh_mu_);
    while (!refresh_cv_.wait_for(lock, kRefreshEvery, [&] { return stop_refresh_; })) {
      lock.unlock();
      absl::StatusOr<std::map<std::string, int64_t>> margins = std::map<std::string, int64_t>{};
      if (options_.pre_trade_risk) margins = http_->PerContractMargins();
      if (options_.pre_trade_risk && margins.ok()) {
        margins = WithUnpricedRefused(*std::move(margins), core_->ListedSymbols());
      }
      auto refs = http_->BandReferences();
      // A new settlement moves the margins or the band references (or both): either is sent.
      if (margins.ok() && refs.ok() && (*margins != sent_margins_ || *refs != sent_refs_)) {
        if (absl::Status s = SendRiskData(core_.get(), *margins, *refs); s.ok()) {
          sent_margins_ = *std::move(margins);
          sent_refs_ = *std::move(refs);
        }
      }
      lock.lock();
    }
  }

  absl::Status Stop() {
    // A leader hands over cleanly: its order ports close first, so that what the logouts
    // bring (cancel-on-disconnect) is sequenced and replicated while it still holds the
    // lease; then the lease goes back. Otherwise (a standby, a node promoting right now)
    // the keeper stops first: afterwards nothing starts anew. Either way the lease is given
    // back, so a standby need not wait out the TTL.
    const bool handing_over = keeper_ && order_ports_open_.load(std::memory_order_acquire) &&
                              !deposed_.load(std::memory_order_acquire);
    abandon_promotion_.store(true, std::memory_order_release);  // one in progress returns
    // What is reported after the gateway stops is reported again at the next start.
    if (entry_) entry_->StopReports();
    absl::Status s;
    bool core_stopped = false;
    if (handing_over) {
      StopRefresher();
      if (http_) http_->Stop();
      if (fix_) fix_->Stop();
      if (entry_ && core_) entry_->FlushDisconnectCancels(std::chrono::seconds(5));
      // The core stops (its clock first, then every accepted input drained and replicated)
      // while the lease is still held: until 2026-12-07 the keeper let go first, and a clock
      // tick or a postponed cancel appended after that failed the pipeline, so a clean
      // hand-over exited 1 (a review).
      if (core_) s = core_->Stop();
      core_stopped = true;
    }
    if (keeper_) keeper_->Stop();
    StopRefresher();
    if (http_) http_->Stop();
    if (fix_) fix_->Stop();  // logouts: cancel-on-disconnect goes to the core
    // Those a full ring postponed are offered now, while the core still runs: until
    // 2026-12-07 their retry came after the core stopped and was dropped, and the sessions'
    // orders outlived the stop.
    if (entry_ && core_ && !core_stopped) {
      entry_->FlushDisconnectCancels(std::chrono::seconds(5));
    }
    if (core_ && !core_stopped) {
      // The core drains every accepted input (COD included) before the listener stops. Also
      // after a Start that failed once the core's threads ran (ExchangeCore::Stop does
      // nothing for a core that never started): until 2026-12-07 such a core was stopped only
      // by its destructor, after the order entry and the journal watch it delivers to were
      // gone.
      s = core_->Stop();
    }
    if (entry_) entry_->Stop();
    if (audit_ && started_) {
      // A start that failed after the core started (a port taken, a store that will not
      // load) says so: its stop is not a clean run's.
      audit_->Record("serve_stop",
                     {{"result", !start_failure_.empty() ? "start failed: " + start_failure_
                                 : s.ok()                ? "ok"
                                                         : std::string(s.message())}});
      (void)audit_->Sync();
    }
    started_ = false;
    return s;
  }

  void StopRefresher() {
    {
      std::lock_guard<std::mutex> lock(refresh_mu_);
      stop_refresh_ = true;
    }
    refresh_cv_.notify_all();
    if (refresher_.joinable()) refresher_.join();
  }

  absl::Status Fail(const char* part, const absl::Status& s) {
    // From the keeper's callbacks (BecomeLeader) the caller reports and the keeper ends itself.
    if (keeper_ != nullptr && keeper_->OnCallbackThread()) {
      return absl::Status(s.code(), absl::StrCat(part, ": ", s.message()));
    }
    start_failure_ = absl::StrCat(part, ": ", s.message());
    Stop().IgnoreError();  // `s` is the failure to report; the audit log has the stop's result
    return absl::Status(s.code(), absl::StrCat(part, ": ", s.message()));
  }

  std::string start_failure_;  // Fail's, for the audit log's serve_stop
  std::atomic<bool> abandon_promotion_{false};  // set by Stop: a promotion in progress ends
  // A promotion that has read nothing of the log for this long gives the lease back.
  static constexpr int64_t kPromoteStallMs = 30000;
  static constexpr std::chrono::seconds kRefreshEvery{1};

  // <data_dir>/serve.lock's descriptor (LockDataDir), closed last: declared first, so the
  // core and its journal are gone before another serve may take the data dir.
  struct DataDirLock {
    int fd = -1;
    ~DataDirLock() {
      if (fd >= 0) ::close(fd);
    }
  } data_dir_lock_;
  common::ExchangeConfig config_;
  ExchangeServerOptions options_;
  std::map<std::string, int64_t> sent_margins_;  // refresher thread after Start
  std::map<std::string, int64_t> sent_refs_;     // the same
  std::mutex refresh_mu_;
  std::condition_variable refresh_cv_;
  bool stop_refresh_ = false;
  std::thread refresher_;
  bool started_ = false;
  exchange::RecoveryInfo recovery_;
  std::unique_ptr<audit::AuditLog> audit_;  // <data_dir>/audit.log; outlives FIX and HTTP
  audit::RefusalThrottle fix_refusals_;     // refused logons written to audit_
  // Destroyed in reverse order: HTTP and FIX before the core they call.
  std::unique_ptr<exchange::ExchangeCore> core_;
  std::unique_ptr<ExchangeOrderEntry> entry_;
  // FIX gateway threads count; /metrics reads (declared before http_: outlive it).
  std::atomic<uint64_t> logons_accepted_{0};
  std::atomic<uint64_t> logons_refused_{0};
  std::unique_ptr<internal::ServeHttp> http_;  // providers + HTTP server
  std::unique_ptr<FixGateway> fix_;
  // Replication (role primary or standby); the keeper is stopped before the rest.
  std::unique_ptr<replication::JetStreamLog> log_;
  std::unique_ptr<replication::Lease> lease_;
  std::unique_ptr<replication::LeaseKeeper> keeper_;
  std::atomic<bool> deposed_{false};
  std::atomic<bool> order_ports_open_{false};  // a replicated node: promoted, FIX started
  // Hears the core's journal errors: a replicated node whose order path failed (fenced,
  // NATS gone past its timeout, disk) resigns the lease at once instead of holding it.
  struct JournalWatch : exchange::OutcomeListener {
    Impl* impl = nullptr;
    void OnOutcome(uint64_t, uint64_t, const exchange::Outcome&) override {}
    void OnJournalError(const absl::Status& s) override {
      if (impl->keeper_) impl->keeper_->Resign(s);
      if (impl->options_.role != ServeRole::kAlone) impl->Depose(s);
    }
  } journal_watch_;
  mutable std::mutex role_mu_;
  mutable std::condition_variable role_cv_;
};

ExchangeServer::ExchangeServer(common::ExchangeConfig config, ExchangeServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

// A caller that wants the stop's result calls Stop() first; a second Stop returns at once.
ExchangeServer::~ExchangeServer() { impl_->Stop().IgnoreError(); }

absl::Status ExchangeServer::Start() { return impl_->Start(); }
absl::Status ExchangeServer::Stop() { return impl_->Stop(); }
int ExchangeServer::fix_port() const { return impl_->config_.fix_port; }
bool ExchangeServer::leading() const { return impl_->IsLeading(); }
bool ExchangeServer::deposed() const { return impl_->deposed_.load(std::memory_order_acquire); }
bool ExchangeServer::WaitLeading(int64_t timeout_ms) const {
  return impl_->WaitLeading(timeout_ms);
}
int ExchangeServer::http_port() const { return impl_->http_ ? impl_->http_->port() : 0; }
const std::string& ExchangeServer::data_dir() const { return impl_->config_.data_dir; }
exchange::ExchangeCore& ExchangeServer::core() { return *impl_->core_; }
const exchange::RecoveryInfo& ExchangeServer::recovery() const { return impl_->recovery_; }

}  // namespace cfx::gateway
