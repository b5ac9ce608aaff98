// `cfx serve --config FILE`: the exchange (engine, journal, FIX, HTTP) until SIGTERM or
// SIGINT (SPEC §11, docs/serve.md). Thin: flags -> ExchangeServer; signals -> Stop.
#include <signal.h>
#include <sys/stat.h>

#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <system_error>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "cfx/common/config.h"
#include "cfx/gateway/exchange_server.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct ServeFlags {
  std::string config;
  std::string data_dir;
  int fix_port = -1;
  int http_port = -1;
  bool no_risk = false;
  bool fix_log = false;
  bool init = false;
  bool existing = false;  // must recover: no new exchange on a missing data dir
  std::string role = "alone";
};

ExitCode RunServeChecked(const ServeFlags& flags);

// A thread the system will not give (a process limit, memory) is a failure to start or to
// serve, said as such, not an abort without a word.
ExitCode RunServe(const ServeFlags& flags) {
  try {
    return RunServeChecked(flags);
  } catch (const std::system_error& e) {
    return Fail("serve", absl::StrCat("the system refused a resource (", e.what(),
                                      "): a thread or process limit (ulimit -u), or memory; "
                                      "lower [limits] http_valuation_threads or raise the limit"));
  } catch (const std::bad_alloc&) {
    return Fail("serve", "out of memory");
  }
}

ExitCode RunServeChecked(const ServeFlags& flags) {
  absl::StatusOr<common::ExchangeConfig> config = common::LoadConfigFile(flags.config);
  if (!config.ok()) return Fail("serve", config.status(), 2);
  if (config->products.empty()) {
    std::cerr << "cfx serve: warning: " << flags.config
              << " has no [[products]]: no contract is listed, every order will be refused "
                 "unknown_symbol"
              << std::endl;
  }
  for (const std::string& session : config->SessionsWithoutPassword()) {
    std::cerr << "cfx serve: warning: session " << session
              << " has no password (allow_no_password): anyone who reaches the FIX port can "
                 "log on as it"
              << std::endl;
  }
  // Block the stop signals before any thread starts, so every thread inherits the mask and
  // only sigwait below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  gateway::ExchangeServerOptions options;
  options.data_dir = flags.data_dir;
  options.fix_port = flags.fix_port;
  options.http_port = flags.http_port;
  options.pre_trade_risk = !flags.no_risk;
  options.fix_message_log = flags.fix_log;
  options.config_path = flags.config;
  // SPEC §11: `cfx serve --config FILE` runs the exchange, a new one on a new data dir.
  // --existing (an operator's restart) refuses to start one; --init refuses to recover one.
  options.data_dir_mode = flags.init       ? gateway::DataDirMode::kNew
                          : flags.existing ? gateway::DataDirMode::kExisting
                                           : gateway::DataDirMode::kOpenOrNew;
  options.role = flags.role == "primary"   ? gateway::ServeRole::kPrimary
                 : flags.role == "standby" ? gateway::ServeRole::kStandby
                                           : gateway::ServeRole::kAlone;
  // A standby's journal fills from the replicated log: a new, empty data dir is its normal
  // first start.
  if (options.role == gateway::ServeRole::kStandby && !flags.init && !flags.existing) {
    options.data_dir_mode = gateway::DataDirMode::kCreate;
  }
  if (options.role != gateway::ServeRole::kAlone && config->replication.user.empty()) {
    std::cerr << "cfx serve: warning: [replication] has no user and password_file: this node "
                 "connects to NATS without credentials, so anyone who reaches the NATS servers "
                 "can read every firm's orders from the stream and take the lease "
                 "(docs/replication.md, \"Credentials\")"
              << std::endl;
  }
  // Whether the data dir held a journal before this start (for the start line's note).
  struct stat journal_stat {};
  const std::string journal_file =
      (flags.data_dir.empty() ? config->data_dir : flags.data_dir) + "/journal/data.mdb";
  const bool had_journal = ::stat(journal_file.c_str(), &journal_stat) == 0;
  gateway::ExchangeServer server(*config, options);
  if (absl::Status s = server.Start(); !s.ok()) return Fail("serve", s);
  const exchange::RecoveryInfo& r = server.recovery();
  std::cerr << "cfx serve: " << flags.role << (server.leading() ? ", leading" : ", following")
            << " fix=" << (server.leading() ? std::to_string(server.fix_port()) : "closed")
            << " http=" << server.http_port() << " data_dir=" << server.data_dir() << " ("
            << (r.fresh ? "fresh" : "recovered") << ", next_seq " << r.next_seq << ", "
            << (r.from_commit_log > 0 ? std::to_string(r.from_commit_log) +
                                            " inputs from the journal's commit log, "
                                      : "")
            << r.listed.size() << " symbols listed)" << std::endl;
  if (!had_journal && options.role == gateway::ServeRole::kAlone &&
      options.data_dir_mode == gateway::DataDirMode::kOpenOrNew) {
    std::cerr << "cfx serve: " << server.data_dir()
              << " held no journal: started a new exchange there (restart with --existing to "
                 "refuse a missing or empty data dir instead)"
              << std::endl;
  }
  if (!r.snapshots_unreadable.empty()) {
    std::cerr << "cfx serve: " << server.data_dir() << "/journal/snapshots: cannot be read ("
              << r.snapshots_unreadable << "); replayed the whole journal instead" << std::endl;
  }
  if (r.skipped_snapshots > 0) {
    std::cerr << "cfx serve: " << server.data_dir() << "/journal/snapshots: " << r.skipped_snapshots
              << " damaged snapshot(s) passed over; recovered "
              << (r.snapshot_seq > 0 ? "from the snapshot at seq " + std::to_string(r.snapshot_seq)
                                     : std::string("by replaying the whole journal"))
              << " (cfx journal verify counts them in corrupt_snapshots)" << std::endl;
  }
  if (r.unrestorable_snapshots > 0) {
    std::cerr << "cfx serve: " << server.data_dir()
              << "/journal/snapshots: " << r.unrestorable_snapshots
              << " snapshot(s) this binary cannot restore passed over (" << r.snapshot_restore_error
              << "); recovered "
              << (r.snapshot_seq > 0 ? "from the snapshot at seq " + std::to_string(r.snapshot_seq)
                                     : std::string("by replaying the whole journal"))
              << std::endl;
  }
  if (r.commit_log_torn_at != 0) {
    // SPEC §5: a torn tail is detected and reported, never applied.
    std::cerr << "cfx serve: " << server.data_dir() << "/journal/commit.log: the last entry (byte "
              << r.commit_log_torn_at
              << ") is cut short or damaged and nothing intact follows it: an append a crash "
                 "interrupted, never acknowledged; not applied"
              << std::endl;
  }
  // Until a stop signal, or (replicated) until this node is deposed: it then never
  // sequences again and exits non-zero, for its supervisor to restart it as a standby.
  int sig = 0;
  const timespec tick{0, 200'000'000};
  for (;;) {
    sig = sigtimedwait(&stop_signals, nullptr, &tick);
    if (sig > 0) break;
    if (server.deposed()) {
      (void)server.Stop();
      return Fail("serve", "deposed: another node holds the leadership lease; restart as a standby", 3);
    }
  }
  std::cerr << "cfx serve: signal " << sig << ", stopping" << std::endl;
  if (absl::Status s = server.Stop(); !s.ok()) {
    return Fail("serve", absl::StrCat("stop: ", s.message()));
  }
  std::cerr << "cfx serve: stopped cleanly" << std::endl;
  return 0;
}

void SetupServe(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<ServeFlags>(
      parent, rc, "serve",
      "Run the exchange: engine, journal, FIX gateway and HTTP API (until SIGTERM)", RunServe);
  cmd->add_option("--config", flags->config, "Exchange TOML config (config/demo.toml)")->required();
  cmd->add_option("--data-dir", flags->data_dir, "Data dir (default: the config's data_dir)");
  cmd->add_option("--fix-port", flags->fix_port, "FIX port (default: config; 0 = any free)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--http-port", flags->http_port, "HTTP port (default: config; 0 = any free)")
      ->check(CLI::Range(0, 65535));
  cmd->add_flag("--no-risk", flags->no_risk, "Disable the pre-trade margin check");
  cmd->add_flag("--fix-log", flags->fix_log,
                "Log every FIX message under <data_dir>/fix/log (passwords redacted)");
  cmd->add_option("--role", flags->role,
                  "alone (default), or with [replication]: primary (takes the lease) or standby "
                  "(follows, takes over when the lease lapses)")
      ->check(CLI::IsMember({"alone", "primary", "standby"}));
  CLI::Option* init =
      cmd->add_flag("--init", flags->init,
                    "Start a new exchange: the data dir must not hold a journal (made if missing)");
  cmd->add_flag("--existing", flags->existing,
                "Recover an exchange: the data dir must hold a journal (a missing or empty data "
                "dir is refused, not started as a new exchange)")
      ->excludes(init);
}

CFX_REGISTER_COMMAND("", SetupServe);

}  // namespace
}  // namespace cfx::app
