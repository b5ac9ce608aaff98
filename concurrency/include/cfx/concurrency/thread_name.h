// Names the calling thread for `top -H`, `perf report --sort comm`, gdb and core dumps:
// every long-lived thread of the exchange says which stage it is ("cfx-sequencer",
// "cfx-matcher", "cfx-fix-conn", ...). Linux keeps 15 characters; longer names are cut.
//
//   matcher_ = concurrency::NamedThread("cfx-matcher", [this] { RunMatcher(); });
#ifndef CFX_CONCURRENCY_THREAD_NAME_H_
#define CFX_CONCURRENCY_THREAD_NAME_H_

#include <pthread.h>

#include <cstring>
#include <thread>
#include <utility>

namespace cfx {
namespace concurrency {  // C++14 spelling: the FIX adapter includes this too

inline void NameThisThread(const char* name) {
  char cut[16];
  std::strncpy(cut, name, sizeof cut - 1);
  cut[sizeof cut - 1] = '\0';
  pthread_setname_np(pthread_self(), cut);  // only fails for names over 15 characters
}

// A thread that names itself first, then runs `body`.
template <typename Body>
std::thread NamedThread(const char* name, Body body) {
  return std::thread([name, body = std::move(body)]() mutable {
    NameThisThread(name);
    body();
  });
}

}  // namespace concurrency
}  // namespace cfx

#endif  // CFX_CONCURRENCY_THREAD_NAME_H_
