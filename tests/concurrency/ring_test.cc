#include <atomic>
#include <thread>
#include <vector>

#include "cfx/concurrency/mpsc_ring.h"
#include "cfx/concurrency/spsc_ring.h"
#include "gtest/gtest.h"

namespace cfx::concurrency {
namespace {

TEST(SpscRingTest, FillsToCapacityThenReportsFull) {
  SpscRing<int> ring(4);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ring.TryPush(i));
  EXPECT_FALSE(ring.TryPush(99));
  int v;
  ASSERT_TRUE(ring.TryPop(v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(ring.TryPush(4));
  for (int want = 1; want <= 4; ++want) {
    ASSERT_TRUE(ring.TryPop(v));
    EXPECT_EQ(v, want);
  }
  EXPECT_FALSE(ring.TryPop(v));
}

TEST(SpscRingTest, WrapsManyLapsInOrder) {
  SpscRing<uint64_t> ring(8);
  uint64_t next_in = 0, next_out = 0, v;
  while (next_out < 1000) {
    while (next_in < 1000 && ring.TryPush(next_in)) ++next_in;
    while (ring.TryPop(v)) EXPECT_EQ(v, next_out++);
  }
}

TEST(SpscRingTest, TwoThreadsDeliverEverythingInOrder) {
  constexpr uint64_t kCount = 2'000'000;
  SpscRing<uint64_t> ring(1024);
  std::thread producer([&] {
    for (uint64_t i = 0; i < kCount; ++i) {
      while (!ring.TryPush(i)) std::this_thread::yield();
    }
  });
  uint64_t expected = 0, v;
  while (expected < kCount) {
    if (ring.TryPop(v)) {
      ASSERT_EQ(v, expected);
      ++expected;
    } else {
      std::this_thread::yield();
    }
  }
  producer.join();
}

TEST(MpscRingTest, FillsToCapacityThenReportsFull) {
  MpscRing<int> ring(2);
  EXPECT_TRUE(ring.TryPush(1));
  EXPECT_TRUE(ring.TryPush(2));
  EXPECT_FALSE(ring.TryPush(3));
  int v;
  ASSERT_TRUE(ring.TryPop(v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(ring.TryPush(3));
  ASSERT_TRUE(ring.TryPop(v));
  EXPECT_EQ(v, 2);
  ASSERT_TRUE(ring.TryPop(v));
  EXPECT_EQ(v, 3);
  EXPECT_FALSE(ring.TryPop(v));
}

struct Item {
  uint32_t producer = 0;
  uint64_t n = 0;
};

// Every item arrives exactly once and each producer's items stay in its order.
TEST(MpscRingTest, ManyProducersStressNoLossNoDuplicateFifoPerProducer) {
  constexpr int kProducers = 4;
  constexpr uint64_t kPerProducer = 300'000;
  MpscRing<Item> ring(256);
  std::vector<std::thread> producers;
  std::atomic<uint64_t> full_seen{0};
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (uint64_t i = 0; i < kPerProducer; ++i) {
        while (!ring.TryPush(Item{static_cast<uint32_t>(p), i})) {
          full_seen.fetch_add(1, std::memory_order_relaxed);
          std::this_thread::yield();
        }
      }
    });
  }
  std::vector<uint64_t> next(kProducers, 0);
  uint64_t received = 0;
  Item item;
  while (received < kProducers * kPerProducer) {
    if (!ring.TryPop(item)) {
      std::this_thread::yield();
      continue;
    }
    ASSERT_LT(item.producer, static_cast<uint32_t>(kProducers));
    ASSERT_EQ(item.n, next[item.producer]) << "producer " << item.producer;
    ++next[item.producer];
    ++received;
  }
  for (auto& t : producers) t.join();
  EXPECT_FALSE(ring.TryPop(item));
  for (int p = 0; p < kProducers; ++p) EXPECT_EQ(next[p], kPerProducer);
}

}  // namespace
}  // namespace cfx::concurrency
