// InitiatorThreads: knows when every connection thread of a QuickFIX ThreadedSocketInitiator
// has ended, so the initiator is destroyed only after the last one.
//
// QuickFIX 1.15's ThreadedSocketInitiator gives each connection attempt a thread. When the
// peer closes first (the exchange answered a Logout, or dropped the client) or the connect
// fails, that thread detaches itself and then still calls the initiator's setDisconnected,
// which stop() neither joins nor waits for: destroying the initiator right after stop() can
// free the mutex that thread is about to lock (ThreadSanitizer saw it in CI). Built as the
// initiator's LogFactory, this class sees each connection thread by the event QuickFIX logs
// on it ("Connection succeeded" / "Connection failed"), counts it, and counts it out when the
// thread exits (a thread_local destructor, which runs after the thread's last QuickFIX call).
//
//   InitiatorThreads threads;
//   FIX::ThreadedSocketInitiator initiator(app, store, settings, threads);
//   ...
//   initiator.stop(true);
//   if (!threads.WaitAllEnded(std::chrono::seconds(5))) /* keep the initiator alive */;
//
// C++14, like every translation unit that includes QuickFIX. Thread safety: all methods may
// be called from any thread. Must outlive the initiator built on it.
#ifndef CFX_CLIENT_INITIATOR_THREADS_H_
#define CFX_CLIENT_INITIATOR_THREADS_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "quickfix/Log.h"
#include "quickfix/ThreadedSocketInitiator.h"

namespace cfx {
namespace client {

class InitiatorThreads : public FIX::LogFactory {
 public:
  InitiatorThreads();

  // True once every connection thread seen so far has exited; false on timeout.
  bool WaitAllEnded(std::chrono::milliseconds timeout);
  // Connection threads seen and not yet exited; seen in all.
  int live() const;
  int seen() const;

  // FIX::LogFactory: the logs record nothing; they only watch for the connection events.
  FIX::Log* create() override;
  FIX::Log* create(const FIX::SessionID&) override;
  void destroy(FIX::Log* log) override;

  struct Count {
    mutable std::mutex mu;
    std::condition_variable cv;
    int live = 0;
    int seen = 0;
  };

 private:
  std::shared_ptr<Count> count_;  // shared with each thread's exit notice
};

// A ThreadedSocketInitiator that tells whether a session is neither connecting nor
// connected: its reconnect timer may start a connection thread as stop() begins, which
// stop() neither joins nor (until it logs) InitiatorThreads counts; the session is pending
// or connected until that thread's last call into the initiator.
class WatchedInitiator : public FIX::ThreadedSocketInitiator {
 public:
  using FIX::ThreadedSocketInitiator::ThreadedSocketInitiator;
  bool Idle(const FIX::SessionID& id) { return isDisconnected(id); }
};

}  // namespace client
}  // namespace cfx

#endif  // CFX_CLIENT_INITIATOR_THREADS_H_
