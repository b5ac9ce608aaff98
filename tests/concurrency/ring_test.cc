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

// PeekAhead shows what the next pops will return, never past what was pushed, across the
// ring's wrap.
TEST(SpscRingTest, PeekAheadSeesWhatTheNextPopsReturn) {
  SpscRing<int> ring(8);
  int v = 0;
  for (int lap = 0; lap < 5; ++lap) {  // the head moves round the ring
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(ring.TryPush(lap * 10 + i));
    EXPECT_TRUE(ring.Empty() == false);  // refreshes the consumer's view of the tail
    for (int k = 0; k < 5; ++k) {
      const int* p = ring.PeekAhead(k);
      ASSERT_NE(p, nullptr) << lap << " " << k;
      EXPECT_EQ(*p, lap * 10 + k);
    }
    EXPECT_EQ(ring.PeekAhead(5), nullptr);
    ASSERT_TRUE(ring.TryPop(v));
    EXPECT_EQ(v, lap * 10);
    EXPECT_EQ(*ring.PeekAhead(3), lap * 10 + 4);
    EXPECT_EQ(ring.PeekAhead(4), nullptr);
    while (ring.TryPop(v)) {
    }
    EXPECT_EQ(ring.PeekAhead(0), nullptr);
  }
}

// In place: a claimed slot is invisible until published, a front slot is not reused until
// popped; the same fullness and order as TryPush/TryPop, across laps.
TEST(SpscRingTest, ClaimPublishFrontPopFrontInPlace) {
  SpscRing<int> ring(4);
  EXPECT_EQ(ring.Front(), nullptr);
  int* slot = ring.TryClaim();
  ASSERT_NE(slot, nullptr);
  *slot = 7;
  EXPECT_EQ(ring.Front(), nullptr);  // claimed, not yet published
  ring.Publish();
  ASSERT_NE(ring.Front(), nullptr);
  EXPECT_EQ(*ring.Front(), 7);
  for (int i = 0; i < 3; ++i) {
    int* s = ring.TryClaim();
    ASSERT_NE(s, nullptr);
    *s = 8 + i;
    ring.Publish();
  }
  EXPECT_EQ(ring.TryClaim(), nullptr);  // full: the front slot is still held
  EXPECT_FALSE(ring.TryPush(99));
  ring.PopFront();
  ASSERT_NE(ring.TryClaim(), nullptr);  // its slot is free again
  int v;
  for (int want = 8; want <= 10; ++want) {
    ASSERT_TRUE(ring.TryPop(v));
    EXPECT_EQ(v, want);
  }
  EXPECT_EQ(ring.Front(), nullptr);
}

TEST(SpscRingTest, TwoThreadsInPlaceDeliverEverythingInOrder) {
  constexpr uint64_t kCount = 1'000'000;
  SpscRing<uint64_t> ring(256);
  std::thread producer([&] {
    for (uint64_t i = 0; i < kCount; ++i) {
      uint64_t* slot;
      while ((slot = ring.TryClaim()) == nullptr) std::this_thread::yield();
      *slot = i;
      ring.Publish();
    }
  });
  uint64_t expected = 0;
  while (expected < kCount) {
    if (const uint64_t* v = ring.Front()) {
      ASSERT_EQ(*v, expected);
      ring.PopFront();
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
