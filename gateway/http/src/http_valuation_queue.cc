#include "http_valuation_queue.h"

#include <utility>

#include "cfx/concurrency/thread_name.h"

namespace cfx::gateway::internal {

ValuationQueue::ValuationQueue(int threads, size_t max_waiting, size_t max_per_owner)
    : max_waiting_(max_waiting < 1 ? 1 : max_waiting),
      max_per_owner_(max_per_owner < 1 ? 1 : max_per_owner) {
  for (int i = 0; i < (threads < 1 ? 1 : threads); ++i) {
    threads_.push_back(concurrency::NamedThread("cfx-http-value", [this] { Loop(); }));
  }
}

ValuationQueue::Result ValuationQueue::Submit(const std::string& owner, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || waiting_ >= max_waiting_) return Result::kFull;
    Owner& o = owners_[owner];
    if (o.waiting.size() + o.running >= max_per_owner_) return Result::kOwnerBusy;
    if (o.waiting.empty()) turns_.push_back(owner);
    o.waiting.push_back(std::move(job));
    ++waiting_;
  }
  cv_.notify_one();
  return Result::kQueued;
}

void ValuationQueue::Loop() {
  for (;;) {
    std::string owner;
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !turns_.empty(); });
      if (stopping_) return;
      owner = std::move(turns_.front());
      turns_.pop_front();
      Owner& o = owners_[owner];
      job = std::move(o.waiting.front());
      o.waiting.pop_front();
      --waiting_;
      ++o.running;
      if (!o.waiting.empty()) turns_.push_back(owner);  // its next job after the others'
    }
    job();
    job = nullptr;  // what the job holds goes before its owner's count does
    std::lock_guard<std::mutex> lock(mu_);
    auto it = owners_.find(owner);
    if (--it->second.running == 0 && it->second.waiting.empty()) owners_.erase(it);
  }
}

void ValuationQueue::Stop() {
  std::map<std::string, Owner> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& [name, o] : owners_) dropped[name].waiting.swap(o.waiting);
    turns_.clear();
    waiting_ = 0;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  dropped.clear();  // outside the lock: a job's captures may take other locks as they go
}

}  // namespace cfx::gateway::internal
