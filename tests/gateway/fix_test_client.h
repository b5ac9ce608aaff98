// Test helpers for the FIX gateway: the in-process initiator (client::FixSession, C++14
// like the gateway's QuickFIX code), message builders, a raw TCP socket, and a fixture that runs a
// gateway with the fake exchange on a free loopback port.
#ifndef CFX_TESTS_GATEWAY_FIX_TEST_CLIENT_H_
#define CFX_TESTS_GATEWAY_FIX_TEST_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cfx/client/fix_session.h"
#include "cfx/gateway/fix_fake_exchange.h"
#include "cfx/gateway/fix_gateway.h"
#include "gtest/gtest.h"
#include "quickfix/Message.h"

namespace cfx {
namespace gateway {
namespace test {

extern const char kSym[];   // listed
extern const char kSym2[];  // listed

// How long a test waits for a message it expects. Generous: a passing test never waits
// this long, and CI machines are slow and shared.
constexpr int kWaitMs = 10000;

// A FIX client session: the project's one initiator (client::FixSession) with the waits
// the tests use, in milliseconds. Sequence numbers persist across reconnects (no
// ResetOnLogon), so tests can exercise resend and gap fill.
class TestClient : public client::FixSession {
 public:
  TestClient(const std::string& sender, int port, const std::string& dir,
             const std::string& dictionary, const std::string& password = "");

  // Starts connecting; a failure to start is a test failure.
  void Start();
  bool WaitLogon(int ms = 5000);
  bool WaitLoggedOut(int ms = 5000);
  void Send(FIX::Message msg);
  // Removes and returns the first received application message matching `pred`.
  bool WaitFor(const std::function<bool(const FIX::Message&)>& pred, FIX::Message* out,
               int ms = kWaitMs);
  // The first ExecutionReport for ClOrdID `cl` with ExecType `exec_type`.
  bool WaitExec(const std::string& cl, char exec_type, FIX::Message* out, int ms = kWaitMs);
  bool WaitType(const std::string& msg_type, FIX::Message* out, int ms = kWaitMs);
};

FIX::Message NewOrderMsg(const std::string& cl, const std::string& account, char side, int qty,
                         const std::string& px, const std::string& symbol = kSym);
FIX::Message CancelMsg(const std::string& cl, const std::string& orig, const std::string& account);
FIX::Message ReplaceMsg(const std::string& cl, const std::string& orig, const std::string& account,
                        const std::string& px, int qty);
// OrderStatusRequest(H) for `cl` of `account` on kSym; 790 = "q-" + cl.
FIX::Message StatusMsg(const std::string& cl, const std::string& account, char side = '1');
// OrderMassCancelRequest(q) of type 7 (all orders) for `account`.
FIX::Message MassCancelMsg(const std::string& cl, const std::string& account);
// SecurityListRequest(x) for all securities (559=4).
FIX::Message SecurityListMsg(const std::string& req_id);
// MarketDataRequest(V): snapshot + updates (263=1) of bids, offers and trades of `symbol`.
FIX::Message MarketDataMsg(const std::string& req_id, const std::string& symbol,
                           const std::string& depth = "5");
// Matches a MarketDataIncrementalRefresh(X) whose first entry has MDEntryType `type`,
// MDEntrySize `qty` and, when given, MDUpdateAction `action`.
std::function<bool(const FIX::Message&)> FirstIncremental(const std::string& type,
                                                          const std::string& qty,
                                                          const std::string& action = "");
std::string F(const FIX::Message& m, int tag);  // field or ""
// The value of `tag` in one whole message as raw wire bytes (SOH-separated), "" when absent.
std::string WireField(const std::string& message, int tag);

// Splits what one connection received into whole messages, checking each one's frame
// (BodyLength and CheckSum), up to a message not yet whole at the end (more may arrive; on
// a closed connection, none will). Returns "" when all is well, else what is wrong.
std::string SplitChecked(const std::string& bytes, std::vector<std::string>* out);

// A blocking loopback TCP socket for hostile input. A write blocked for kWaitMs fails, so
// a test never hangs on a gateway that stopped reading.
class RawSocket {
 public:
  // `receive_buffer_bytes` > 0 sets SO_RCVBUF before connecting: a small window, so that
  // output the test does not read backs up at the gateway rather than in this socket.
  explicit RawSocket(int port, const char* ipv4 = "127.0.0.1", int receive_buffer_bytes = 0);
  ~RawSocket();
  bool ok() const { return fd_ >= 0; }
  // False when the peer has closed or reset the connection (or the write timed out).
  bool Write(const std::string& bytes);
  // Reads what arrives within `ms`; sets *closed if the peer closed the connection.
  std::string Read(int ms, bool* closed);
  // Reads until `needle` and the rest of the message it stands in have arrived, the peer
  // closed, or `ms` passed; returns what arrived.
  std::string ReadUntil(const std::string& needle, int ms, bool* closed);

 private:
  int fd_ = -1;
};

// A framed FIX message (BodyLength and CheckSum computed) from "35=A|49=X|..." with | for SOH.
std::string Frame(const std::string& body_fields, bool corrupt_checksum = false);
std::string UtcNow();
int FreePort();
std::string TempDir();

// Firms ALPHA (accounts A1, A2; sessions ALPHA_T1 with password, ALPHA_T2, drop copy
// ALPHA_DC) and BETA (account B1; BETA_T1, drop copy BETA_DC); THROTTLED (T1 at 5 msgs/s).
class FixGatewayTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  FixGatewayConfig MakeConfig();
  void StartGateway(const std::string& listen_address = "127.0.0.1");
  void StopGateway();
  std::unique_ptr<TestClient> Connect(const std::string& sender, const std::string& password = "",
                                      bool expect_logon = true);

  int port_ = 0;
  std::string dir_;
  std::string dictionary_;
  // Applied to the config by StartGateway (a test's limits).
  std::function<void(FixGatewayConfig&)> configure_;
  std::unique_ptr<testing::FakeExchange> exchange_;
  std::unique_ptr<FixGateway> gateway_;
};

}  // namespace test
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_TESTS_GATEWAY_FIX_TEST_CLIENT_H_
