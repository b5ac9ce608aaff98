// BoundAcceptor: a QuickFIX acceptor that listens on one address and port. QuickFIX's own
// ThreadedSocketAcceptor binds every interface (this QuickFIX has no bind-address setting),
// so the gateway runs its own accept loop and hands each connection to QuickFIX's
// ThreadedSocketConnection, one thread per connection, as ThreadedSocketAcceptor does.
//
//   BoundAcceptor acceptor(app, store, settings, "127.0.0.1", 9878, /*no_delay=*/true);
//   acceptor.start();   // FIX::RuntimeError if the address cannot be bound
//   acceptor.stop();    // logs sessions out, closes every connection, joins its threads
//
// C++14 (QuickFIX headers): only the gateway's QuickFIX object library includes this.
#ifndef CFX_GATEWAY_SRC_FIX_ACCEPTOR_H_
#define CFX_GATEWAY_SRC_FIX_ACCEPTOR_H_

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cfx/gateway/fix_quickfix.h"

namespace cfx {
namespace gateway {
namespace internal {

class BoundAcceptor : public FIX::Acceptor {
 public:
  BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                const FIX::SessionSettings& settings, std::string address, int port,
                bool no_delay);
  BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                const FIX::SessionSettings& settings, FIX::LogFactory& log, std::string address,
                int port, bool no_delay);
  ~BoundAcceptor() override;

 private:
  struct Connection {
    // A duplicate of the connection's socket, closed (under mu_) only after QuickFIX is
    // done with its own: stopping can always shut the socket down through it, and never
    // hits a descriptor number that was closed and reused meanwhile.
    int own_fd = -1;
    std::thread thread;
    bool done = false;  // under mu_
  };

  void onInitialize(const FIX::SessionSettings&) throw(FIX::RuntimeError) override;
  void onStart() override {}  // the accept loop starts in onInitialize
  bool onPoll(double) override { return false; }
  void onStop() override;

  void AcceptLoop();
  // Runs connection `c` (socket `fd`) on a thread of its own; mu_ held. Throws
  // std::system_error when no thread can be started.
  void StartConnection(Connection* c, int fd);
  void ReapFinished();  // joins the threads of closed connections; takes mu_
  void CloseAll();      // stops accepting, closes every connection, joins; idempotent

  const std::string address_;
  const int port_;
  const bool no_delay_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};  // set before the listening socket is shut down
  std::thread accept_thread_;
  std::mutex mu_;
  std::list<std::unique_ptr<Connection>> connections_;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_SRC_FIX_ACCEPTOR_H_
