// Valuation requests (account margin, what-if) run off the I/O threads on a bounded queue
// (docs/http.md, "Valuation requests"): a slow valuation holds neither the other endpoints
// nor another firm's valuations, and one token cannot fill the queue.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http_test_util.h"
#include "http_valuation_queue.h"

namespace cfx::gateway::testing {
namespace {

using internal::ValuationQueue;
using std::chrono::milliseconds;

// A gate that jobs wait at until it opens.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Whether `n` callers have reached the gate within `wait`.
  bool Reached(int n, milliseconds wait = milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, wait, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int waiting_ = 0;
};

TEST(ValuationQueueTest, BoundsWhatWaitsInAllAndForOneOwnerAndRunsInOrder) {
  Gate gate;
  std::mutex mu;
  std::vector<std::string> ran;
  ValuationQueue q(/*threads=*/1, /*max_waiting=*/2, /*max_per_owner=*/2);
  auto job = [&](std::string name) {
    return [&, name] {
      if (name == "a1") gate.Wait();
      std::lock_guard<std::mutex> lock(mu);
      ran.push_back(name);
    };
  };
  ASSERT_EQ(q.Submit("a", job("a1")), ValuationQueue::Result::kQueued);
  ASSERT_TRUE(gate.Reached(1));  // a1 runs (and holds the one thread)
  EXPECT_EQ(q.Submit("a", job("a2")), ValuationQueue::Result::kQueued);
  EXPECT_EQ(q.Submit("a", job("a3")), ValuationQueue::Result::kOwnerBusy)
      << "a has two in hand: one running, one waiting";
  EXPECT_EQ(q.Submit("b", job("b1")), ValuationQueue::Result::kQueued);
  EXPECT_EQ(q.Submit("c", job("c1")), ValuationQueue::Result::kFull) << "two wait already";
  gate.Open();
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (ran.size() == 3) break;
    }
    std::this_thread::sleep_for(milliseconds(2));
  }
  // Once done, the owner's count is back: a takes more work.
  for (int i = 0; i < 500 && q.Submit("a", job("a4")) != ValuationQueue::Result::kQueued; ++i) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  q.Stop();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(ran.size(), 3u);
  EXPECT_EQ(ran[0], "a1");
  EXPECT_EQ(ran[1], "a2");
  EXPECT_EQ(ran[2], "b1");
}

// Owners take turns: one owner's backlog delays another's job by one job, not by all of it.
TEST(ValuationQueueTest, OwnersWithWorkWaitingTakeTurns) {
  Gate gate;
  std::mutex mu;
  std::vector<std::string> ran;
  ValuationQueue q(1, 64, 64);
  ASSERT_EQ(q.Submit("x", [&] { gate.Wait(); }), ValuationQueue::Result::kQueued);
  ASSERT_TRUE(gate.Reached(1));
  auto job = [&](std::string name) {
    return [&, name] {
      std::lock_guard<std::mutex> lock(mu);
      ran.push_back(name);
    };
  };
  for (const char* name : {"a1", "a2", "a3", "a4", "a5"}) {
    ASSERT_EQ(q.Submit("a", job(name)), ValuationQueue::Result::kQueued);
  }
  ASSERT_EQ(q.Submit("b", job("b1")), ValuationQueue::Result::kQueued);
  ASSERT_EQ(q.Submit("c", job("c1")), ValuationQueue::Result::kQueued);
  ASSERT_EQ(q.Submit("b", job("b2")), ValuationQueue::Result::kQueued);
  gate.Open();
  for (int i = 0; i < 1000; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (ran.size() == 8) break;
    }
    std::this_thread::sleep_for(milliseconds(2));
  }
  q.Stop();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(ran, (std::vector<std::string>{"a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5"}));
}

TEST(ValuationQueueTest, StopDropsWhatWaitsAndRefusesMore) {
  Gate gate;
  std::atomic<int> ran{0};
  auto held = std::make_shared<int>(0);
  ValuationQueue q(1, 8, 8);
  ASSERT_EQ(q.Submit("a",
                     [&] {
                       gate.Wait();
                       ++ran;
                     }),
            ValuationQueue::Result::kQueued);
  ASSERT_TRUE(gate.Reached(1));
  ASSERT_EQ(q.Submit("b", [&ran, held] { ++ran; }), ValuationQueue::Result::kQueued);
  EXPECT_EQ(held.use_count(), 2);
  std::thread opener([&] {
    std::this_thread::sleep_for(milliseconds(50));
    gate.Open();
  });
  q.Stop();  // waits for the running job, drops the waiting one
  opener.join();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(held.use_count(), 1) << "the dropped job was destroyed";
  EXPECT_EQ(q.Submit("c", [] {}), ValuationQueue::Result::kFull);
}

// A MarginProvider whose answers wait at a gate, over the in-memory one.
class GatedMargin : public MarginProvider {
 public:
  explicit GatedMargin(InMemoryProviders* mem) : mem_(mem) {}
  absl::StatusOr<MarginResult> AccountMargin(const std::string& account,
                                             MarginMethod method) override {
    gate.Wait();
    return mem_->AccountMargin(account, method);
  }
  absl::StatusOr<MarginResult> WhatIf(const std::vector<WhatIfPosition>& positions,
                                      MarginMethod method) override {
    gate.Wait();
    return mem_->WhatIf(positions, method);
  }
  Gate gate;

 private:
  InMemoryProviders* mem_;
};

class HttpValuationTest : public HttpServerTest {
 protected:
  void Start(HttpServerOptions options) {
    FillProviders(&mem_);
    HttpProviders providers = mem_.Providers();
    providers.margin = &gated_;
    server_ = std::make_unique<HttpServer>(TestConfig(), providers, options);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    gated_.gate.Open();  // nothing stays parked at the gate
    HttpServerTest::TearDown();
  }
  // Sends a what-if on `c` without reading the answer.
  static void SendWhatIf(HttpClient& c, const std::string& token) {
    const std::string body = R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":-5}]})";
    ASSERT_TRUE(c.SendRaw("POST /v1/margin/whatif HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                          token + "\r\nContent-Length: " + std::to_string(body.size()) +
                          "\r\n\r\n" + body)
                    .ok());
  }

  // A client whose reads give up after a second (ReadPatiently and FirstAnswer retry).
  HttpClient ConnectQuick() {
    absl::StatusOr<HttpClient> c =
        HttpClient::Connect("127.0.0.1", server_->port(), milliseconds(1000));
    EXPECT_TRUE(c.ok()) << c.status();
    return *std::move(c);
  }
  // The answer waiting on `c`, within about ten seconds.
  static absl::StatusOr<HttpClientResponse> ReadPatiently(HttpClient& c) {
    absl::StatusOr<HttpClientResponse> r = c.ReadResponse();
    for (int i = 0; i < 10 && !r.ok() && r.status().message() == "read timed out"; ++i) {
      r = c.ReadResponse();
    }
    return r;
  }
  // Which of `clients` gets an answer first (requests racing to the queue may be queued
  // in either order), and the answer; -1 when none does within about ten seconds.
  static int FirstAnswer(const std::vector<HttpClient*>& clients, HttpClientResponse* answer) {
    for (int round = 0; round < 5; ++round) {
      for (size_t i = 0; i < clients.size(); ++i) {
        absl::StatusOr<HttpClientResponse> r = clients[i]->ReadResponse();
        if (r.ok()) {
          *answer = *r;
          return static_cast<int>(i);
        }
      }
    }
    return -1;
  }

  GatedMargin gated_{&mem_};
};

// With every I/O thread's worth of valuations stuck, the other endpoints still answer at once:
// before, margin ran on the I/O threads, and two slow valuations held both.
TEST_F(HttpValuationTest, SlowValuationsHoldNoIoThread) {
  HttpServerOptions o = NoRateLimit();
  o.threads = 2;
  o.valuation_threads = 2;
  Start(o);
  HttpClient a = Connect();
  HttpClient b = Connect();
  SendWhatIf(a, kRisk);
  SendWhatIf(b, kAlpha);
  ASSERT_TRUE(gated_.gate.Reached(2)) << "both valuations started";
  const auto start = std::chrono::steady_clock::now();
  HttpClientResponse book = Call("GET", std::string("/v1/book/") + kSym, kBeta);
  EXPECT_EQ(book.status, 200);
  HttpClientResponse health = Call("GET", "/healthz", "");
  EXPECT_EQ(health.status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(3000));
  gated_.gate.Open();
  for (HttpClient* c : {&a, &b}) {
    absl::StatusOr<HttpClientResponse> r = ReadPatiently(*c);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200) << r->body;
  }
}

// One token's requests in hand are capped (429), the queue in all too (503); another token
// still gets its valuation, and the refused one may come back.
TEST_F(HttpValuationTest, OneTokenCannotFillTheQueue) {
  HttpServerOptions o = NoRateLimit();
  o.valuation_threads = 1;
  o.valuation_waiting = 2;
  o.valuation_per_token = 2;
  Start(o);
  HttpClient r1 = ConnectQuick(), r2 = ConnectQuick(), r3 = ConnectQuick();
  SendWhatIf(r1, kRisk);
  ASSERT_TRUE(gated_.gate.Reached(1));  // running
  SendWhatIf(r2, kRisk);
  SendWhatIf(r3, kRisk);  // one of these two waits; the other is a third in hand: refused
  HttpClientResponse third;
  const int refused = FirstAnswer({&r2, &r3}, &third);
  ASSERT_GE(refused, 0) << "neither was refused";
  EXPECT_EQ(third.status, 429) << third.body;
  EXPECT_NE(third.body.find("rate_limited"), std::string::npos) << third.body;
  bool retry_after = false;
  for (const auto& [name, value] : third.headers) retry_after |= name == "retry-after";
  EXPECT_TRUE(retry_after);
  HttpClient& risk_waiting = refused == 0 ? r3 : r2;
  HttpClient& risk_refused = refused == 0 ? r2 : r3;

  // Another token has the last waiting place; a third token finds the queue full.
  HttpClient a1 = ConnectQuick(), g1 = ConnectQuick();
  SendWhatIf(a1, kAlpha);
  SendWhatIf(g1, kGamma);
  HttpClientResponse busy;
  const int full = FirstAnswer({&a1, &g1}, &busy);
  ASSERT_GE(full, 0) << "neither was refused";
  EXPECT_EQ(busy.status, 503) << busy.body;
  EXPECT_NE(busy.body.find("busy"), std::string::npos) << busy.body;
  HttpClient& other_waiting = full == 0 ? g1 : a1;

  gated_.gate.Open();
  for (HttpClient* c : {&r1, &risk_waiting, &other_waiting}) {
    absl::StatusOr<HttpClientResponse> r = ReadPatiently(*c);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200) << r->body;
  }
  // The refused one is served once there is room, on the same connection.
  SendWhatIf(risk_refused, kRisk);
  absl::StatusOr<HttpClientResponse> again = ReadPatiently(risk_refused);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status, 200) << again->body;
}

// Access is decided before a request is queued: another firm's account is 403 at once,
// however full the queue.
TEST_F(HttpValuationTest, RefusalsDoNotWaitForTheQueue) {
  HttpServerOptions o = NoRateLimit();
  o.valuation_threads = 1;
  o.valuation_waiting = 1;
  Start(o);
  HttpClient r1 = Connect(), r2 = Connect();
  SendWhatIf(r1, kRisk);
  ASSERT_TRUE(gated_.gate.Reached(1));
  SendWhatIf(r2, kRisk);  // the one waiting place
  EXPECT_EQ(Call("GET", "/v1/accounts/BETA-1/margin", kAlpha).status, 403);
  EXPECT_EQ(Call("POST", "/v1/margin/whatif", "nope", "{}").status, 401);
  gated_.gate.Open();
  for (HttpClient* c : {&r1, &r2}) {
    absl::StatusOr<HttpClientResponse> r = ReadPatiently(*c);
    ASSERT_TRUE(r.ok()) << r.status();
  }
}

}  // namespace
}  // namespace cfx::gateway::testing
