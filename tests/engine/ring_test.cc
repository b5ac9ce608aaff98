// SpscRing / MpscRing: unit behaviour and multi-threaded stress (run under TSan too).
#include <thread>
#include <vector>

#include "cfx/engine/mpsc_ring.h"
#include "cfx/engine/spsc_ring.h"
#include "gtest/gtest.h"

namespace cfx::engine {
namespace {

TEST(SpscRingTest, PushPopInOrderAndReportsFull) {
  SpscRing<int, 4> ring;
  int v = 0;
  EXPECT_FALSE(ring.TryPop(&v));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ring.TryPush(i), OfferResult::kOk);
  EXPECT_EQ(ring.TryPush(9), OfferResult::kFull);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ring.TryPop(&v));
    EXPECT_EQ(v, i);
  }
  EXPECT_FALSE(ring.TryPop(&v));
  EXPECT_EQ(ring.TryPush(5), OfferResult::kOk);  // wraps
}

TEST(SpscRingTest, StressOneProducerOneConsumerDeliversEverythingInOrder) {
  constexpr uint64_t kCount = 1000000;
  SpscRing<uint64_t, 1024> ring;
  std::thread producer([&] {
    for (uint64_t i = 1; i <= kCount;) {
      if (ring.TryPush(i) == OfferResult::kOk) ++i; else std::this_thread::yield();
    }
  });
  uint64_t expected = 1, v = 0;
  while (expected <= kCount) {
    if (ring.TryPop(&v)) {
      ASSERT_EQ(v, expected);
      ++expected;
    } else {
      std::this_thread::yield();
    }
  }
  producer.join();
}

TEST(MpscRingTest, PushPopAndFull) {
  MpscRing<int, 2> ring;
  EXPECT_EQ(ring.TryPush(1), OfferResult::kOk);
  EXPECT_EQ(ring.TryPush(2), OfferResult::kOk);
  EXPECT_EQ(ring.TryPush(3), OfferResult::kFull);
  int v = 0;
  ASSERT_TRUE(ring.TryPop(&v));
  EXPECT_EQ(v, 1);
  EXPECT_EQ(ring.TryPush(3), OfferResult::kOk);
  ASSERT_TRUE(ring.TryPop(&v));
  EXPECT_EQ(v, 2);
  ASSERT_TRUE(ring.TryPop(&v));
  EXPECT_EQ(v, 3);
  EXPECT_FALSE(ring.TryPop(&v));
}

TEST(MpscRingTest, StressManyProducersEachStreamArrivesInOrder) {
  constexpr int kProducers = 4;
  constexpr uint64_t kPerProducer = 200000;
  MpscRing<uint64_t, 256> ring;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&ring, p] {
      for (uint64_t i = 1; i <= kPerProducer;) {
        uint64_t v = (static_cast<uint64_t>(p) << 32) | i;
        if (ring.TryPush(v) == OfferResult::kOk) ++i; else std::this_thread::yield();
      }
    });
  }
  std::vector<uint64_t> next(kProducers, 1);
  uint64_t received = 0, v = 0;
  while (received < kProducers * kPerProducer) {
    if (!ring.TryPop(&v)) {
      std::this_thread::yield();
      continue;
    }
    int p = static_cast<int>(v >> 32);
    ASSERT_EQ(v & 0xffffffffu, next[p]) << "producer " << p;
    ++next[p];
    ++received;
  }
  for (auto& t : producers) t.join();
}

}  // namespace
}  // namespace cfx::engine
