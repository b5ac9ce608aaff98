// Unit tests of the gateway's pure helpers: prices, the throttle, entitlements.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iterator>
#include <mutex>
#include <thread>

#include "fix_entitlements.h"
#include "fix_log.h"
#include "fix_market_data.h"
#include "fix_price.h"
#include "fix_test_client.h"
#include "fix_throttle.h"
#include "gtest/gtest.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

TEST(FixPriceTest, ParsesDecimalsExactlyIntoTicks) {
  int64_t t = 0;
  EXPECT_EQ(ParsePriceTicks("5.25", &t), PriceParse::kOk);
  EXPECT_EQ(t, 5250);
  EXPECT_EQ(ParsePriceTicks("5.2500", &t), PriceParse::kOk);
  EXPECT_EQ(t, 5250);
  EXPECT_EQ(ParsePriceTicks("12", &t), PriceParse::kOk);
  EXPECT_EQ(t, 12000);
  EXPECT_EQ(ParsePriceTicks("5.0005", &t), PriceParse::kOffTick);
  EXPECT_EQ(ParsePriceTicks("0", &t), PriceParse::kNotPositive);
  EXPECT_EQ(ParsePriceTicks("-1", &t), PriceParse::kMalformed);
  EXPECT_EQ(ParsePriceTicks("1e3", &t), PriceParse::kMalformed);
  EXPECT_EQ(ParsePriceTicks("5.", &t), PriceParse::kMalformed);
  EXPECT_EQ(ParsePriceTicks("99999999999999999999", &t), PriceParse::kMalformed);
  EXPECT_EQ(FormatTicks(5250), "5.250");
  EXPECT_EQ(FormatTicks(7), "0.007");
  EXPECT_EQ(FormatAvgPx(5250 * 3 + 5260, 4), "5.252500");
}

TEST(FixPriceTest, QuantitiesArePositiveIntegers) {
  int64_t q = 0;
  EXPECT_TRUE(ParseQty("10", &q));
  EXPECT_EQ(q, 10);
  EXPECT_TRUE(ParseQty("10.0", &q));
  EXPECT_FALSE(ParseQty("10.5", &q));
  EXPECT_FALSE(ParseQty("0", &q));
  EXPECT_FALSE(ParseQty("", &q));
}

// What the gateway passes on for the engine to judge in SPEC §4.2's order: whole numbers,
// zero and negative ones too; what is no whole number is refused at the gateway.
TEST(FixPriceTest, WholeQuantitiesIncludeZeroAndNegatives) {
  int64_t q = 7;
  EXPECT_TRUE(ParseWholeQty("0", &q));
  EXPECT_EQ(q, 0);
  EXPECT_TRUE(ParseWholeQty("-5", &q));
  EXPECT_EQ(q, -5);
  EXPECT_TRUE(ParseWholeQty("12.000", &q));
  EXPECT_EQ(q, 12);
  for (const char* bad : {"", "-", "--5", "1.5", "0.0001", "x", "5e3", "99999999999999999999"}) {
    EXPECT_FALSE(ParseWholeQty(bad, &q)) << bad;
  }
}

TEST(FixThrottleTest, BurstsToTheRateThenRefillsOverTime) {
  TokenBucket bucket(10);
  auto t0 = TokenBucket::Clock::now();
  int taken = 0;
  for (int i = 0; i < 20; ++i) taken += bucket.TryTake(t0) ? 1 : 0;
  EXPECT_EQ(taken, 10);
  EXPECT_FALSE(bucket.TryTake(t0 + std::chrono::milliseconds(50)));
  EXPECT_TRUE(bucket.TryTake(t0 + std::chrono::milliseconds(150)));
}

TEST(FixEntitlementsTest, AccountsAndDropCopiesStayInsideTheFirm) {
  FixGatewayConfig c;
  FixSessionSpec a, dc;
  a.sender_comp_id = "A_T";
  a.firm = "A";
  dc.sender_comp_id = "A_DC";
  dc.firm = "A";
  dc.drop_copy = true;
  c.sessions = {a, dc};
  c.accounts = {{"A1", "A"}, {"B1", "B"}};
  Entitlements e(c);
  EXPECT_TRUE(e.AccountAllowed("A", "A1"));
  EXPECT_FALSE(e.AccountAllowed("A", "B1"));
  EXPECT_FALSE(e.AccountAllowed("A", "ZZ"));
  ASSERT_EQ(e.DropCopies("A").size(), 1u);
  EXPECT_EQ(e.DropCopies("A")[0], "A_DC");
  EXPECT_TRUE(e.DropCopies("B").empty());
  EXPECT_EQ(e.Session("nobody"), nullptr);
}

TEST(FixLogTest, PasswordAndNewPasswordValuesAreRedactedWhereverTheyStand) {
  const std::string logon =
      "8=FIX.4.4\x01" "9=80\x01" "35=A\x01" "49=ALPHA_T1\x01" "554=alpha-secret\x01"
      "925=new-secret\x01" "10=123\x01";
  const std::string redacted = RedactFixSecrets(logon);
  EXPECT_EQ(redacted.find("alpha-secret"), std::string::npos) << redacted;
  EXPECT_EQ(redacted.find("new-secret"), std::string::npos) << redacted;
  EXPECT_NE(redacted.find("\x01" "554=***\x01" "925=***\x01" "10=123"), std::string::npos);
  EXPECT_NE(redacted.find("49=ALPHA_T1"), std::string::npos);
  // At the end without SOH, in an event that quotes a message, and not inside another tag.
  EXPECT_EQ(RedactFixSecrets("35=A\x01" "554=abc"), "35=A\x01" "554=***");
  EXPECT_EQ(RedactFixSecrets("Session not found: 8=FIX.4.4\x01" "554=pw\x01"),
            "Session not found: 8=FIX.4.4\x01" "554=***\x01");
  EXPECT_EQ(RedactFixSecrets("58=x\x01" "1554=kept\x01"), "58=x\x01" "1554=kept\x01");
  EXPECT_EQ(RedactFixSecrets("554=first"), "554=***");
  // RawData (96), where other venues take a credential: its value and everything after it
  // up to the message's trailer (10=), whatever its RawDataLength (95) says: RawData may
  // hold SOH, and a length that lies leaves a secret's tail that reads as fields of its own.
  EXPECT_EQ(RedactFixSecrets("35=A\x01"
                             "95=9\x01"
                             "96=pw\x01"
                             "secret\x01"
                             "108=30\x01"
                             "10=123\x01"),
            "35=A\x01"
            "95=9\x01"
            "96=***\x01"
            "10=123\x01");
  EXPECT_EQ(RedactFixSecrets("95=40\x01"
                             "96=A_SECRET\x01"
                             "10=000\x01"
                             "B_SECRET\x01"
                             "10=220\x01"),
            "95=40\x01"
            "96=***\x01"
            "10=220\x01");
  EXPECT_EQ(RedactFixSecrets("35=A\x01"
                             "96=token\x01"
                             "108=30"),
            "35=A\x01"
            "96=***");
  EXPECT_EQ(SecretPieces("554=pw\x01"
                         "96=RAW_SECRET\x01"
                         "8=FIX.4.4\x01"
                         "TAIL_SECRET\x01"
                         "10=1\x01"),
            (std::vector<std::string>{"RAW_SECRET", "8=FIX.4.4", "TAIL_SECRET"}));
  // A tag written in another form that still reads as 554 or 925 (QuickFIX took `0554` as
  // the Logon's password), and a tag after an event's text.
  for (const char* tag : {"0554", "+554", "554 ", " 554", "00925", "-925"}) {
    const std::string line = std::string("35=A\x01") + tag +
                             "=S3cret\x01"
                             "10=1\x01";
    EXPECT_EQ(RedactFixSecrets(line), std::string("35=A\x01") + tag +
                                          "=***\x01"
                                          "10=1\x01")
        << tag;
  }
  EXPECT_EQ(RedactFixSecrets("Rejected: 554=pw\x01"), "Rejected: 554=***\x01");
  EXPECT_EQ(RedactFixSecrets("58=a=b\x01"
                             "55=X"),
            "58=a=b\x01"
            "55=X");
  EXPECT_EQ(RedactFixSecrets("5540=kept\x01"
                             "2554=kept"),
            "5540=kept\x01"
            "2554=kept");
}

// SPEC §2: the thread that delivers the matcher's outcomes (the matcher's own, in `cfx
// serve`) never waits on a reader's lock. A book update that comes while a market-data
// request holds the state (here: its snapshot's send is held up) returns at once, and the
// request applies it before it lets go: the subscriber that was there gets its X, the
// newcomer its W and then the X.

// QuickFIX's events about a message it cannot parse quote pieces of it ("Field tag is
// invalid: <text>"): a RawData holding SOH made its secret's tail such a piece, logged in
// clear in the event log (a black-box audit of 2026-12-06). A session's log redacts the
// pieces of the last incoming message's secrets in the events after it.
TEST(FixLogTest, EventsQuotingPiecesOfASecretAreRedactedToo) {
  const std::string dir = test::TempDir();
  {
    RedactingFileLogFactory factory(dir);
    FIX::Log* log = factory.create(FIX::SessionID("FIX.4.4", "CFX", "ALPHA_T1"));
    log->onIncoming(
        "8=FIX.4.4\x01"
        "9=70\x01"
        "35=A\x01"
        "554=pw-secret\x01"
        "95=28\x01"
        "96=RAWA_SECRET\x01"
        "RAWA_TAIL_SECRET\x01"
        "10=123\x01");
    log->onEvent(
        "Invalid message: Field tag is invalid: RAWA_TAIL_SECRET\x01"
        "10");
    log->onEvent("Logon message is not valid");
    factory.destroy(log);
  }
  std::string all;
  for (const char* file :
       {"/FIX.4.4-CFX-ALPHA_T1.messages.log", "/FIX.4.4-CFX-ALPHA_T1.event.log"}) {
    std::ifstream in(dir + file, std::ios::binary);
    all += std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_EQ(all.find("SECRET"), std::string::npos) << all;
  EXPECT_NE(all.find("Field tag is invalid: ***"), std::string::npos) << all;
  EXPECT_NE(all.find("Logon message is not valid"), std::string::npos) << all;
  const std::string rm = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(rm.c_str()), 0) << rm;
}
// Market data whose session FAST subscribes to the whole book of kMdSymbol, and whose
// session SLOW's snapshot send does not return until Release(): a request in progress,
// holding the market data's state. Records what is sent, in order.
constexpr char kMdSymbol[] = "B200-GOLD-US-202703";
class HeldRequest {
 public:
  HeldRequest()
      : md_([this](const std::string& session, uint64_t, FIX::Message& msg) {
          std::unique_lock<std::mutex> lock(m_);
          const std::string type = msg.getHeader().getField(35);
          sent_.push_back(session + ":" + type);
          if (session == "FAST") fast_ += msg.toString();
          if (session == "SLOW" && type == "W") {
            in_send_ = true;
            cv_.notify_all();
            cv_.wait(lock, [&] { return release_; });
          }
          return true;
        }) {
    ListedContract c;
    c.symbol = kMdSymbol;
    md_.SetContracts({c});
    md_.OnRequest("FAST", 1, test::MarketDataMsg("f1", kMdSymbol, "0"));
    slow_ = std::thread(
        [this] { md_.OnRequest("SLOW", 1, test::MarketDataMsg("s1", kMdSymbol, "0")); });
    std::unique_lock<std::mutex> lock(m_);
    EXPECT_TRUE(cv_.wait_for(lock, std::chrono::seconds(10), [&] { return in_send_; }));
  }
  ~HeldRequest() { Release(); }
  MarketData& md() { return md_; }
  // Runs `deliver` on another thread, as the matcher would; whether it returned while the
  // request still held the state (within `wait`).
  bool DeliveredWhileHeld(const std::function<void()>& deliver, std::chrono::seconds wait) {
    delivered_ = std::async(std::launch::async, deliver);
    return delivered_.wait_for(wait) == std::future_status::ready;
  }
  // Lets the request finish, and the delivery if it waited.
  void Release() {
    {
      std::lock_guard<std::mutex> lock(m_);
      release_ = true;
    }
    cv_.notify_all();
    if (slow_.joinable()) slow_.join();
    if (delivered_.valid()) delivered_.wait();
  }
  std::vector<std::string> sent() {
    std::lock_guard<std::mutex> lock(m_);
    return sent_;
  }
  std::string fast() {
    std::lock_guard<std::mutex> lock(m_);
    return fast_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool in_send_ = false, release_ = false;
  std::vector<std::string> sent_;  // "<session>:<MsgType>"
  std::string fast_;               // every message sent to FAST, as text
  MarketData md_;
  std::thread slow_;
  std::future<void> delivered_;
};

TEST(MarketDataTest, ABookUpdateNeverWaitsForARequestInProgress) {
  HeldRequest held;
  BookUpdate book;
  book.symbol = kMdSymbol;
  book.bids.push_back(BookLevel{5000, 3, 1});
  EXPECT_TRUE(held.DeliveredWhileHeld([&] { held.md().OnBook(book); }, std::chrono::seconds(5)))
      << "the delivering thread waited for the request";
  const std::vector<std::string> before = held.sent();
  EXPECT_EQ(std::count(before.begin(), before.end(), "FAST:X"), 0);  // the request holds it
  held.Release();
  const std::vector<std::string> want = {"FAST:W", "SLOW:W", "FAST:X", "SLOW:X"};
  EXPECT_EQ(held.sent(), want);
}

// SPEC §2: the matcher never waits on a reader's lock. Past the ring's 1,024 updates, while
// a request holds the market data's state, the delivering thread keeps going; every update
// reaches the subscribers, in order, once the request lets go. Until 2026-12-07 the 1,025th
// waited for the request.
TEST(MarketDataTest, ABurstPastTheRingNeitherWaitsForARequestNorLosesAnUpdate) {
  HeldRequest held;
  constexpr int kTrades = 1500;
  EXPECT_TRUE(held.DeliveredWhileHeld(
      [&] {
        for (int i = 1; i <= kTrades; ++i) {
          BookUpdate book;
          book.symbol = kMdSymbol;
          book.bids.push_back(BookLevel{5000, i, 1});
          held.md().OnBook(book);
          held.md().OnTrade(PublicTrade{kMdSymbol, 5000, i, static_cast<uint64_t>(i), 0});
        }
      },
      std::chrono::seconds(10)))
      << "the delivering thread waited for the request";
  held.Release();
  // Each trade's size (the first 271 after a 269=2), in the order FAST got them.
  const std::string fast = held.fast();
  std::vector<int64_t> sizes;
  for (size_t at = fast.find("\x01"
                             "269=2\x01");
       at != std::string::npos; at = fast.find("\x01"
                                               "269=2\x01",
                                               at + 1)) {
    const size_t size = fast.find(
        "\x01"
        "271=",
        at);
    ASSERT_NE(size, std::string::npos);
    sizes.push_back(std::stoll(fast.substr(size + 5)));
  }
  ASSERT_EQ(sizes.size(), static_cast<size_t>(kTrades));
  for (int i = 0; i < kTrades; ++i) ASSERT_EQ(sizes[static_cast<size_t>(i)], i + 1) << i;
}

}  // namespace
}  // namespace internal
}  // namespace gateway
}  // namespace cfx
