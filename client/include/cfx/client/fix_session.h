// FixSession: the one FIX 4.4 initiator session of cfx (SPEC §6), with QuickFIX in view.
// FixClient (fix_client.h) is built on it and hides QuickFIX; code that must send or read
// raw FIX::Message objects (the gateway's tests, which send deliberately bad messages)
// uses FixSession directly. C++14, like every translation unit that includes QuickFIX.
//
//   FixClientOptions opt;
//   opt.sender_comp_id = "ALPHA_T1"; opt.port = port; opt.store_dir = dir;
//   FixSession session(opt);
//   if (!session.Start().ok() || !session.WaitLogon(std::chrono::seconds(5))) ...;
//   FIX::Message m = ...; session.Send(m);
//   FIX::Message er;
//   session.WaitFor([](const FIX::Message& x) { return x.getHeader().getField(35) == "8"; },
//                   &er, std::chrono::seconds(2));
//   session.Logout(std::chrono::seconds(2));
#ifndef CFX_CLIENT_FIX_SESSION_H_
#define CFX_CLIENT_FIX_SESSION_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cfx/client/fix_client.h"
#include "cfx/client/initiator_threads.h"
#include "quickfix/Application.h"
#include "quickfix/FileStore.h"
#include "quickfix/Message.h"
#include "quickfix/Session.h"
#include "quickfix/SessionSettings.h"
#include "quickfix/ThreadedSocketInitiator.h"

namespace cfx {
namespace client {

// The settings every cfx initiator session uses: loopback-friendly (Nagle off, reconnect
// after 1 s), always in session, validated against `dictionary`, stored under store_dir.
// The caller adds ConnectionType and the connect address when it builds several sessions
// on one initiator (the FIX bench).
FIX::Dictionary InitiatorSettings(const FixClientOptions& options, const std::string& dictionary);

// Thread safety: every public method may be called from any thread. QuickFIX calls the
// FIX::Application methods on its session thread; mu_ guards what both sides touch.
class FixSession : public FIX::Application {
 public:
  // Runs on the session thread for every application message and session-level Reject
  // (35=3) received; must not block for long.
  using Handler = std::function<void(const FIX::Message&)>;

  explicit FixSession(FixClientOptions options);
  ~FixSession() override;  // stops without Logout
  FixSession(const FixSession&) = delete;
  FixSession& operator=(const FixSession&) = delete;

  // Set before Start. With a handler, received messages go to it instead of the queue.
  void SetHandler(Handler handler);

  // Creates store_dir, writes the gateway's dictionary there when dictionary_path is empty,
  // and starts connecting (reconnecting every second). Does not wait for the Logon.
  absl::Status Start();
  // Waits for the Logon answer; false on timeout.
  bool WaitLogon(std::chrono::milliseconds timeout);
  bool WaitLoggedOut(std::chrono::milliseconds timeout);
  // Sends Logout, waits for the answer (or the timeout), then stops. Idempotent.
  void Logout(std::chrono::milliseconds timeout);
  // Stops the initiator: with a Logout first (QuickFIX waits LogoutTimeout for the answer),
  // or, with `force`, by dropping the connection.
  void Stop(bool force = false);

  bool logged_on() const;
  // Text(58) of the last Logout the exchange sent ("" when none).
  std::string logout_text() const;
  const FIX::SessionID& id() const { return id_; }
  const std::string& sender() const { return options_.sender_comp_id; }

  // Sends `m` on this session (QuickFIX stores it for resend when not logged on).
  // Unavailable when QuickFIX refuses it.
  absl::Status Send(FIX::Message& m);

  // The queue (no handler set): removes and returns (in *out, may be null) the oldest
  // message matching `pred`; false on timeout.
  bool WaitFor(const std::function<bool(const FIX::Message&)>& pred, FIX::Message* out,
               std::chrono::milliseconds timeout);
  // A copy of every queued message, oldest first.
  std::vector<FIX::Message> Snapshot() const;

  // FIX::Application
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override;
  void onLogout(const FIX::SessionID&) override;
  void toAdmin(FIX::Message& m, const FIX::SessionID&) override;
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message& m,
                 const FIX::SessionID&) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                              FIX::IncorrectTagValue, FIX::RejectLogon) override;
  void fromApp(const FIX::Message& m,
               const FIX::SessionID&) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                            FIX::IncorrectTagValue,
                                            FIX::UnsupportedMessageType) override;

 private:
  void Deliver(const FIX::Message& m);

  const FixClientOptions options_;
  const FIX::SessionID id_;
  Handler handler_;  // set before Start, read-only after
  FIX::SessionSettings settings_;
  std::unique_ptr<FIX::MessageStoreFactory> store_;  // files without the Logon's secrets
  std::unique_ptr<InitiatorThreads> threads_;  // outlives initiator_, built on it
  std::unique_ptr<WatchedInitiator> initiator_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<FIX::Message> queue_;
  bool logged_on_ = false;
  std::string logout_text_;
};

}  // namespace client
}  // namespace cfx

#endif  // CFX_CLIENT_FIX_SESSION_H_
