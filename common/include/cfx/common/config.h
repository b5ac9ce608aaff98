// The exchange's TOML configuration (SPEC §11): firms, accounts, sessions, tokens,
// products, ports. One file drives `cfx serve`, `cfx settle`, the HTTP API and the demo.
//
//   absl::StatusOr<ExchangeConfig> config = LoadConfigFile("config/demo.toml");
//   if (!config.ok()) { std::cerr << config.status() << "\n"; return 2; }  // names file/key
#ifndef CFX_COMMON_CONFIG_H_
#define CFX_COMMON_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/common/units.h"

namespace cfx::common {

struct FirmConfig {
  std::string id;
  std::string name;
};

struct AccountConfig {
  std::string id;
  std::string firm;
  MicroUsd collateral;
};

enum class SessionRole { kTrading, kDropCopy };

struct SessionConfig {
  std::string sender_comp_id;  // the client's CompID (tag 49 on messages it sends)
  std::string firm;
  SessionRole role = SessionRole::kTrading;
  // The argon2id PHC string (`cfx passwd`) the Logon's 554 is verified against. Absent
  // only with allow_no_password (test rigs): then any Logon for the CompID is accepted.
  std::optional<std::string> password_hash;
  bool allow_no_password = false;
  std::string username;  // 553, optional; not a secret
  bool cancel_on_disconnect = true;
  int throttle_msgs_per_sec = 500;
  bool reset_on_logon = false;
};

enum class TokenRole { kFirm, kRiskDesk };

struct TokenConfig {
  std::string token_sha256;  // SHA-256 of the bearer token, 64 lowercase hex digits
  TokenRole role = TokenRole::kFirm;
  std::string firm;  // for kFirm
};

struct ProductConfig {
  Grade grade;
  std::optional<int64_t> ref_ticks;  // initial band reference (0.001 USD ticks)
  int64_t max_order_qty = 1000;
};

// [limits]: what one client can make the exchange hold (SPEC §6, §7). Every key is
// optional; the defaults are safe for a production venue. docs/reliability.md lists them.
struct LimitsConfig {
  int fix_max_connections = 256;          // FIX connections in all
  int fix_max_connections_per_peer = 16;  // FIX connections from one IP address
  int fix_logon_timeout_ms = 10000;       // connect -> Logon received
  int fix_max_message_bytes = 16384;      // largest BodyLength (9)
  // Messages of any kind one FIX connection may send in a second before it is closed; the
  // session's throttle_msgs_per_sec (rejects, the session kept) applies below it.
  int fix_max_messages_per_sec = 20000;
  int fix_max_outbound_bytes = 8 << 20;   // unread output per FIX client before disconnect
  int fix_resend_piece_messages = 256;    // stored messages per piece of a resend
  int fix_max_resent_per_sec = 50000;     // messages one connection's resends send a second
  int fix_max_bytes_past_gap = 4 << 20;   // held past a MsgSeqNum gap; more closes
  int fix_max_latency_secs = 120;         // SendingTime accuracy; 0 turns the check off
  int fix_max_heartbeat_secs = 60;        // largest HeartBtInt a Logon may ask for
  int fix_logon_backoff_ms = 1000;        // first wait after a failed logon; 0: none (rigs)
  int http_max_connections = 1024;
  int http_max_connections_per_peer = 64;
  int http_max_body_bytes = 64 * 1024;
  int http_max_header_bytes = 8 * 1024;  // request line + headers (and trailers)
  int http_read_timeout_ms = 15000;      // one whole request, also the keep-alive idle
  int http_unauthorized_backoff_ms = 1000;  // first wait of a peer after a 401; 0: none
  int http_unauthorized_free = 100;         // 401s in a row a peer may have before its first wait
  int http_requests_per_sec = 1000;         // per bearer token (token bucket); 0: no limit
  int http_request_burst = 1000;            // the bucket's size
  int http_valuation_threads = 1;           // threads running margin and what-if requests
  int http_valuation_waiting = 1024;        // such requests waiting in all; past it 503
  int http_valuation_per_token = 64;        // waiting or running for one token; past it 429
  // Live orders (resting or pending stops) one account may have; a new order past it is
  // rejected `throttled`. 0: no cap. Sequenced as a risk setting (docs/reliability.md).
  int max_open_orders_per_account = 10000;
};

// [replication]: the hot standby on NATS JetStream (docs/replication.md). Optional: without
// it `cfx serve` runs alone (`--role` needs it).
struct ReplicationConfig {
  std::vector<std::string> servers;     // "nats://host:port"; empty: no replication
  std::string stream = "CFX_INPUTS";    // the JetStream stream of sequenced input batches
  std::string subject = "cfx.inputs";
  int replicas = 3;                     // the stream's and the lease bucket's copies (1..5)
  std::string lease_bucket = "CFX_LEASE";
  int lease_ttl_ms = 10000;             // a lease not renewed for this long lapses (>= 500)
  int timeout_ms = 2000;                // one publish ack or request (>= 100)
  std::string node_id;                  // this node in the lease; empty: host name + data dir
  // The NATS user the nodes connect as, and the file holding its password (read at start,
  // ReadSecretFile: private to its owner). Both or neither; neither: no credentials (`cfx
  // serve` warns: anyone who reaches the servers reads every order).
  std::string user;
  std::string password_file;
};

struct ExchangeConfig {
  std::string source;  // file name, for messages
  std::string data_dir = "./cfx-data";
  std::string listen_address = "127.0.0.1";
  int fix_port = 9878;
  int http_port = 8080;
  std::string fix_target_comp_id = "CFX";
  std::vector<Date> holidays;
  double psr = 0.15;  // price scan range for span16
  int band_pct = 10;  // price band ± percent of the reference
  int market_protection_ticks = 50;
  int snapshot_interval = 100000;  // inputs between engine snapshots
  // Address space reserved for the LMDB maps under data_dir (sparse files: disk is used only
  // as they fill). A full map stops the order path with an error naming the setting; a
  // restart with a larger one goes on (docs/durability.md, "A full map").
  uint64_t journal_map_bytes = 16ull << 30;     // exchange.journal_map_gib
  uint64_t snapshot_map_bytes = 4ull << 30;     // exchange.snapshot_map_gib
  uint64_t trade_store_map_bytes = 8ull << 30;  // exchange.trade_store_map_gib
  // Close surveillance (SPEC §9 item 7): a closing-window share above this is an alert.
  double close_concentration_alert = 0.5;
  LimitsConfig limits;
  ReplicationConfig replication;
  std::vector<FirmConfig> firms;
  std::vector<AccountConfig> accounts;
  std::vector<SessionConfig> sessions;
  std::vector<TokenConfig> tokens;
  std::vector<ProductConfig> products;

  BusinessCalendar Calendar() const { return BusinessCalendar(holidays); }
  const AccountConfig* FindAccount(absl::string_view id) const;
  const SessionConfig* FindSession(absl::string_view sender_comp_id) const;
  // The token whose digest is SHA-256(`token`), the plain bearer token; nullptr if none.
  const TokenConfig* FindToken(absl::string_view token) const;
  // Sessions configured with allow_no_password (`cfx serve` warns about each at start).
  std::vector<std::string> SessionsWithoutPassword() const;
};

// Parses and validates a config. Errors are InvalidArgument and name the source, the
// line where known, and the key (`config/demo.toml:12: accounts[2].firm: unknown firm 'F9'`).
// Credentials are hashes only: a plain `password` or `token` key is an error, and so is a
// session with neither password_hash nor allow_no_password = true.
absl::StatusOr<ExchangeConfig> ParseConfig(absl::string_view toml_text, absl::string_view source);
absl::StatusOr<ExchangeConfig> LoadConfigFile(const std::string& path);

// The settlement terms of `config` as a config file of their own: holidays, psr,
// close_concentration_alert, firms and accounts with their collateral; no sessions, tokens,
// ports or comments (so no credential, hashed or not, and no secret an operator wrote in a
// comment). `cfx serve` and `cfx replay --config --data-dir` keep it in the data dir
// (SettlementTermsPath) for `cfx settle` run without --config (SPEC §12; docs/settlement.md).
// ParseConfig of the text gives back those settings exactly.
std::string SettlementTermsToml(const ExchangeConfig& config);

// `<data_dir>/settlement_terms.toml` (0600, written whole through a rename).
inline std::string SettlementTermsPath(const std::string& data_dir) {
  return data_dir + "/settlement_terms.toml";
}

// Loads the settlement terms a data dir keeps (SettlementTermsPath). What SettlementTermsToml
// writes always holds the [exchange] table: a kept file that holds none (empty, cut short
// before it, blanked) is damaged, not "no holidays and no collateral": DataLoss naming it.
absl::StatusOr<ExchangeConfig> LoadKeptSettlementTerms(const std::string& path);

}  // namespace cfx::common

#endif  // CFX_COMMON_CONFIG_H_
