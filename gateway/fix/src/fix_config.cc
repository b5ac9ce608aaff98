#include "cfx/gateway/fix_config.h"

namespace cfx::gateway {

FixGatewayConfig FixGatewayConfigFromExchange(const common::ExchangeConfig& config) {
  FixGatewayConfig out;
  out.listen_address = config.listen_address;
  out.port = config.fix_port;
  out.target_comp_id = config.fix_target_comp_id;
  out.data_dir = config.data_dir;
  const common::LimitsConfig& l = config.limits;
  out.max_connections = l.fix_max_connections;
  out.max_connections_per_peer = l.fix_max_connections_per_peer;
  out.logon_timeout_ms = l.fix_logon_timeout_ms;
  out.max_message_bytes = l.fix_max_message_bytes;
  out.max_messages_per_sec = l.fix_max_messages_per_sec;
  out.max_outbound_bytes = l.fix_max_outbound_bytes;
  out.resend_piece_messages = l.fix_resend_piece_messages;
  out.max_resent_per_sec = l.fix_max_resent_per_sec;
  out.max_bytes_past_gap = l.fix_max_bytes_past_gap;
  out.max_latency_secs = l.fix_max_latency_secs;
  out.max_heartbeat_secs = l.fix_max_heartbeat_secs;
  out.logon_backoff.initial_ms = l.fix_logon_backoff_ms;
  for (const common::SessionConfig& s : config.sessions) {
    FixSessionSpec spec;
    spec.sender_comp_id = s.sender_comp_id;
    spec.firm = s.firm;
    spec.drop_copy = s.role == common::SessionRole::kDropCopy;
    spec.has_password = s.password_hash.has_value();
    spec.password_hash = s.password_hash.value_or("");
    spec.username = s.username;
    spec.cancel_on_disconnect = s.cancel_on_disconnect;
    spec.throttle_msgs_per_sec = s.throttle_msgs_per_sec;
    spec.reset_on_logon = s.reset_on_logon;
    out.sessions.push_back(std::move(spec));
  }
  for (const common::AccountConfig& a : config.accounts) out.accounts.push_back({a.id, a.firm});
  return out;
}

}  // namespace cfx::gateway
