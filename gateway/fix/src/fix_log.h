// The `--fix-log` message log: QuickFIX's Log interface writing one line per message or
// event, like QuickFIX's FileLog, except that it never writes a secret and its files are
// private. A Logon's Password (554), NewPassword (925) and RawData (96, to the trailer) are
// written `554=***`, and the pieces of them are redacted in the events that follow; files are
// created 0600 (whatever the umask) under the folder given:
//   <dir>/<BeginString>-<SenderCompID>-<TargetCompID>.messages.log   (and .event.log)
//   <dir>/GLOBAL.messages.log, GLOBAL.event.log                      (no session)
//
//   RedactingFileLogFactory logs(data_dir + "/fix/log");
//   BoundAcceptor acceptor(app, store, settings, logs, ...);
//
// C++14 (QuickFIX headers): only the gateway's QuickFIX object library includes this.
#ifndef CFX_GATEWAY_SRC_FIX_LOG_H_
#define CFX_GATEWAY_SRC_FIX_LOG_H_

#include <string>
#include <vector>

#include "cfx/gateway/fix_quickfix.h"

namespace cfx {
namespace gateway {
namespace internal {

// `text` (a FIX message, or an event that quotes one) with the value of every 554 and 925
// field replaced by ***, and a RawData (96) field's value with everything after it up to
// the message's trailer (10=). A field is recognised at the start of `text` or after SOH.
std::string RedactFixSecrets(const std::string& text);
// The secret values RedactFixSecrets would redact in `text`, split at SOH, each of 4 bytes
// or more: a session's log redacts them in the events that follow the message.
std::vector<std::string> SecretPieces(const std::string& text);

// Thread safety: QuickFIX calls a session's log from the connection's thread and from
// senders' threads; each log takes its own mutex, so the factory's logs are thread-safe.
class RedactingFileLogFactory : public FIX::LogFactory {
 public:
  explicit RedactingFileLogFactory(std::string dir) : dir_(std::move(dir)) {}
  FIX::Log* create() override;
  FIX::Log* create(const FIX::SessionID& id) override;
  void destroy(FIX::Log* log) override;

 private:
  const std::string dir_;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_SRC_FIX_LOG_H_
