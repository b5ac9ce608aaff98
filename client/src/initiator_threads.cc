// InitiatorThreads: counts a ThreadedSocketInitiator's connection threads until they exit.
#include "cfx/client/initiator_threads.h"

#include <string>
#include <utility>

namespace cfx {
namespace client {
namespace {

// Lives in a connection thread's thread_local storage; its destructor runs when the thread
// exits, after QuickFIX's thread function has returned.
class ExitNotice {
 public:
  explicit ExitNotice(std::shared_ptr<InitiatorThreads::Count> count) : count_(std::move(count)) {
    std::lock_guard<std::mutex> lock(count_->mu);
    ++count_->live;
    ++count_->seen;
  }
  ~ExitNotice() {
    std::lock_guard<std::mutex> lock(count_->mu);
    --count_->live;
    count_->cv.notify_all();
  }
  ExitNotice(const ExitNotice&) = delete;
  ExitNotice& operator=(const ExitNotice&) = delete;

 private:
  std::shared_ptr<InitiatorThreads::Count> count_;
};

thread_local std::unique_ptr<ExitNotice> exit_notice;

class WatchLog : public FIX::Log {
 public:
  explicit WatchLog(std::shared_ptr<InitiatorThreads::Count> count) : count_(std::move(count)) {}
  void clear() override {}
  void backup() override {}
  void onIncoming(const std::string&) override {}
  void onOutgoing(const std::string&) override {}
  // QuickFIX logs exactly one of these on each connection thread, before it can detach.
  void onEvent(const std::string& text) override {
    if (exit_notice) return;
    if (text == "Connection succeeded" || text == "Connection failed") {
      exit_notice.reset(new ExitNotice(count_));
    }
  }

 private:
  std::shared_ptr<InitiatorThreads::Count> count_;
};

}  // namespace

InitiatorThreads::InitiatorThreads() : count_(std::make_shared<Count>()) {}

bool InitiatorThreads::WaitAllEnded(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(count_->mu);
  return count_->cv.wait_for(lock, timeout, [&] { return count_->live == 0; });
}

int InitiatorThreads::live() const {
  std::lock_guard<std::mutex> lock(count_->mu);
  return count_->live;
}

int InitiatorThreads::seen() const {
  std::lock_guard<std::mutex> lock(count_->mu);
  return count_->seen;
}

FIX::Log* InitiatorThreads::create() { return new WatchLog(count_); }

FIX::Log* InitiatorThreads::create(const FIX::SessionID&) { return new WatchLog(count_); }

void InitiatorThreads::destroy(FIX::Log* log) { delete log; }

}  // namespace client
}  // namespace cfx
