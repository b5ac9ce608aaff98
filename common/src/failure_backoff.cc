#include "cfx/common/failure_backoff.h"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace cfx {
namespace common {

std::string PeerKey(const std::string& address) {
  in6_addr a;
  if (address.find(':') == std::string::npos || ::inet_pton(AF_INET6, address.c_str(), &a) != 1) {
    return address;
  }
  if (IN6_IS_ADDR_V4MAPPED(&a)) return address;
  std::memset(a.s6_addr + 8, 0, 8);
  char text[INET6_ADDRSTRLEN];
  if (::inet_ntop(AF_INET6, &a, text, sizeof text) == nullptr) return address;
  return std::string(text) + "/64";
}

FailureBackoff::FailureBackoff(BackoffOptions options, Clock clock)
    : options_(options), max_ns_(options.max_ms * 1000000), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

int64_t FailureBackoff::RemainingMs(const std::string& key) const {
  if (held_.load(std::memory_order_acquire) == 0) return 0;
  const int64_t now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || now >= it->second.until_ns) return 0;
  return (it->second.until_ns - now + 999999) / 1000000;
}

int64_t FailureBackoff::Failed(const std::string& key) {
  if (options_.initial_ms <= 0) return 0;
  const int64_t now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= std::max<size_t>(1, options_.max_keys)) MakeRoom(now);
    it = entries_.emplace(key, Entry()).first;
  } else if (Stale(it->second, now)) {
    it->second.failures = 0;  // a quiet spell ends the streak
  }
  Entry& e = it->second;
  e.failures = std::min(e.failures + 1, 1 << 20);
  const int counted = e.failures - std::max(0, options_.free_failures);
  int64_t wait_ms = counted > 0 ? options_.initial_ms : 0;
  for (int i = 1; i < counted && wait_ms < options_.max_ms; ++i) wait_ms *= 2;
  wait_ms = std::min(wait_ms, options_.max_ms);
  e.until_ns = now + wait_ms * 1000000;
  held_.store(entries_.size(), std::memory_order_release);
  return wait_ms;
}

void FailureBackoff::Succeeded(const std::string& key) {
  if (held_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(key);
  held_.store(entries_.size(), std::memory_order_release);
}

size_t FailureBackoff::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void FailureBackoff::MakeRoom(int64_t now) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = Stale(it->second, now) ? entries_.erase(it) : std::next(it);
  }
  if (entries_.size() < std::max<size_t>(1, options_.max_keys)) return;
  auto first_free = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
    return a.second.until_ns < b.second.until_ns;
  });
  entries_.erase(first_free);
}

}  // namespace common
}  // namespace cfx
