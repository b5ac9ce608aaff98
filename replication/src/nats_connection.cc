#include "nats_connection.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace cfx::replication {

absl::Status NatsError(absl::string_view what, natsStatus s, jsErrCode js) {
  natsStatus last = NATS_OK;
  const char* text = nats_GetLastError(&last);
  std::string msg = absl::StrCat("nats: ", what, ": ", natsStatus_GetText(s));
  if (js != 0) absl::StrAppend(&msg, " (JetStream error ", static_cast<int>(js), ")");
  if (text != nullptr && *text != '\0') absl::StrAppend(&msg, ": ", text);
  if (js == JSStreamWrongLastSequenceErr) return absl::FailedPreconditionError(msg);
  switch (s) {
    case NATS_TIMEOUT:
      return absl::DeadlineExceededError(msg);
    case NATS_NOT_FOUND:
      return absl::NotFoundError(msg);
    case NATS_INVALID_ARG:
      return absl::InvalidArgumentError(msg);
    default:
      return absl::UnavailableError(msg);
  }
}

absl::StatusOr<std::unique_ptr<NatsConnection>> NatsConnection::Connect(const NatsOptions& o) {
  if (o.servers.empty()) return absl::InvalidArgumentError("nats: no servers configured");
  std::unique_ptr<NatsConnection> c(new NatsConnection());
  natsOptions* opts = nullptr;
  natsStatus s = natsOptions_Create(&opts);
  std::vector<const char*> urls;
  for (const std::string& u : o.servers) urls.push_back(u.c_str());
  if (s == NATS_OK) s = natsOptions_SetServers(opts, urls.data(), static_cast<int>(urls.size()));
  if (s == NATS_OK) s = natsOptions_SetTimeout(opts, o.timeout_ms);
  // Keep trying the other servers for as long as the process runs: losing one server of
  // the cluster must not lose the connection for good.
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(opts, -1);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(opts, 100);
  if (s == NATS_OK) s = natsOptions_SetNoRandomize(opts, false);
  if (s == NATS_OK && !o.user.empty()) {
    s = natsOptions_SetUserInfo(opts, o.user.c_str(), o.password.c_str());
  }
  if (s == NATS_OK) s = natsConnection_Connect(&c->nc_, opts);
  natsOptions_Destroy(opts);
  if (s != NATS_OK) return NatsError("connect", s);
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = o.timeout_ms;
  s = natsConnection_JetStream(&c->js_, c->nc_, &jo);
  if (s != NATS_OK) return NatsError("jetstream context", s);
  return c;
}

NatsConnection::~NatsConnection() {
  if (js_ != nullptr) jsCtx_Destroy(js_);
  if (nc_ != nullptr) {
    natsConnection_Close(nc_);
    natsConnection_Destroy(nc_);
  }
}

}  // namespace cfx::replication
