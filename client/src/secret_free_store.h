// SecretFreeStoreFactory: QuickFIX's FileStore for an initiator, with the Logon's secrets
// blanked before a message is written. QuickFIX stores every message a session sends, its
// Logon too, so a plain FileStore kept Password (554) and NewPassword (925) in clear in
// `<store>/FIX.4.4-<CompID>-CFX.body`. Each secret's value is overwritten with '*' of the
// same length (the stored copy is never sent again: QuickFIX gap-fills admin messages on a
// resend). Internal to cfx_client (not in `client::internal`, which
// fix_client.cc aliases to the gateway's); C++14 like every file that includes QuickFIX.
#ifndef CFX_CLIENT_SRC_SECRET_FREE_STORE_H_
#define CFX_CLIENT_SRC_SECRET_FREE_STORE_H_

#include <string>

#include "quickfix/FileStore.h"
#include "quickfix/MessageStore.h"
#include "quickfix/SessionSettings.h"

namespace cfx {
namespace client {

// `message` with the values of 554 and 925 replaced by '*' (same length); other bytes as they
// were.
std::string WithoutSecrets(const std::string& message);

// Thread safety: as FIX::FileStoreFactory's (QuickFIX calls it under its session's lock).
class SecretFreeStoreFactory : public FIX::MessageStoreFactory {
 public:
  explicit SecretFreeStoreFactory(const FIX::SessionSettings& settings) : files_(settings) {}
  FIX::MessageStore* create(const FIX::SessionID& id) override;
  void destroy(FIX::MessageStore* store) override;

 private:
  FIX::FileStoreFactory files_;
};

}  // namespace client
}  // namespace cfx

#endif  // CFX_CLIENT_SRC_SECRET_FREE_STORE_H_
