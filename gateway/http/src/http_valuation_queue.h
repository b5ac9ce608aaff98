// ValuationQueue: runs the valuation requests (account margin, what-if) on threads of their
// own. Under `mc` a large portfolio is milliseconds of CPU a request; on the I/O threads a
// few such requests held every thread that answers everyone else (docs/http.md, "Valuation
// requests"). Fair: the owners (bearer tokens) with work waiting take turns, one job each,
// so one owner's hundred requests delay another owner's by one job, not a hundred; an
// owner's own jobs run in the order they came. Bounded: at most max_waiting jobs wait in
// all, and one owner has at most max_per_owner waiting or running; past either bound a job
// is refused at once.
//
//   ValuationQueue q(/*threads=*/1, /*max_waiting=*/1024, /*max_per_owner=*/64);
//   if (q.Submit(token_digest, [..] { ... }) != ValuationQueue::Result::kQueued) { 503 / 429 }
//   q.Stop();  // drops what waits (destroying those jobs), joins the threads
//
// Thread safety: Submit and Stop may be called from any thread.
#ifndef CFX_GATEWAY_HTTP_VALUATION_QUEUE_H_
#define CFX_GATEWAY_HTTP_VALUATION_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cfx::gateway::internal {

class ValuationQueue {
 public:
  enum class Result {
    kQueued,
    kFull,       // max_waiting jobs wait already (or the queue is stopped)
    kOwnerBusy,  // the owner has max_per_owner jobs waiting or running
  };

  // REQUIRES: threads >= 1, max_waiting >= 1, max_per_owner >= 1.
  ValuationQueue(int threads, size_t max_waiting, size_t max_per_owner);
  ~ValuationQueue() { Stop(); }
  ValuationQueue(const ValuationQueue&) = delete;
  ValuationQueue& operator=(const ValuationQueue&) = delete;

  // `job` must not throw.
  Result Submit(const std::string& owner, std::function<void()> job);
  // Idempotent. Jobs running finish first; jobs waiting are destroyed unrun.
  void Stop();

 private:
  void Loop();

  struct Owner {
    std::deque<std::function<void()>> waiting;
    size_t running = 0;
  };

  const size_t max_waiting_;
  const size_t max_per_owner_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_: every owner with a job waiting or running; the owners with a job
  // waiting, in turn order (each once); the jobs waiting in all.
  std::map<std::string, Owner> owners_;
  std::deque<std::string> turns_;
  size_t waiting_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_VALUATION_QUEUE_H_
