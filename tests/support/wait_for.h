// Polls `pred` every millisecond until it holds or `limit` has passed; true when it held.
// For tests that wait on another thread's progress without a hook to be told of it.
#ifndef CFX_TESTS_SUPPORT_WAIT_FOR_H_
#define CFX_TESTS_SUPPORT_WAIT_FOR_H_

#include <chrono>
#include <thread>

namespace cfx::testsupport {

template <typename Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_WAIT_FOR_H_
