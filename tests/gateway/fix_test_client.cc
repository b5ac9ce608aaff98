#include "fix_test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include "cfx/common/credentials.h"
#include "cfx/gateway/fix_quickfix.h"

namespace cfx {
namespace gateway {
namespace test {

const char kSym[] = "B200-GOLD-US-202703";
const char kSym2[] = "B200-PLAT-US-202703";

namespace {

client::FixClientOptions TestOptions(const std::string& sender, int port, const std::string& dir,
                                     const std::string& dictionary, const std::string& password) {
  client::FixClientOptions o;
  o.sender_comp_id = sender;
  o.port = port;
  o.store_dir = dir;
  o.dictionary_path = dictionary;
  o.password = password;
  o.reset_on_logon = false;
  return o;
}

}  // namespace

TestClient::TestClient(const std::string& sender, int port, const std::string& dir,
                       const std::string& dictionary, const std::string& password)
    : FixSession(TestOptions(sender, port, dir, dictionary, password)) {}

void TestClient::Start() {
  absl::Status st = FixSession::Start();
  EXPECT_TRUE(st.ok()) << st;
}

bool TestClient::WaitLogon(int ms) { return FixSession::WaitLogon(std::chrono::milliseconds(ms)); }

bool TestClient::WaitLoggedOut(int ms) {
  return FixSession::WaitLoggedOut(std::chrono::milliseconds(ms));
}

void TestClient::Send(FIX::Message msg) { FixSession::Send(msg).IgnoreError(); }

bool TestClient::WaitFor(const std::function<bool(const FIX::Message&)>& pred, FIX::Message* out,
                         int ms) {
  return FixSession::WaitFor(pred, out, std::chrono::milliseconds(ms));
}

bool TestClient::WaitExec(const std::string& cl, char exec_type, FIX::Message* out, int ms) {
  return WaitFor(
      [&](const FIX::Message& m) {
        return F(m, 35) == "8" && F(m, 11) == cl && F(m, 150) == std::string(1, exec_type);
      },
      out, ms);
}

bool TestClient::WaitType(const std::string& type, FIX::Message* out, int ms) {
  return WaitFor([&](const FIX::Message& m) { return F(m, 35) == type; }, out, ms);
}

FIX::Message StatusMsg(const std::string& cl, const std::string& account, char side) {
  FIX::Message h;
  h.getHeader().setField(35, "H");
  h.setField(11, cl);
  h.setField(1, account);
  h.setField(55, kSym);
  h.setField(54, std::string(1, side));
  h.setField(790, "q-" + cl);
  return h;
}

FIX::Message MassCancelMsg(const std::string& cl, const std::string& account) {
  FIX::Message q;
  q.getHeader().setField(35, "q");
  q.setField(11, cl);
  q.setField(530, "7");
  q.setField(1, account);
  q.setField(60, UtcNow());
  return q;
}

FIX::Message SecurityListMsg(const std::string& req_id) {
  FIX::Message x;
  x.getHeader().setField(35, "x");
  x.setField(320, req_id);
  x.setField(559, "4");
  return x;
}

FIX::Message MarketDataMsg(const std::string& req_id, const std::string& symbol,
                           const std::string& depth) {
  FIX::Message v;
  v.getHeader().setField(35, "V");
  v.setField(262, req_id);
  v.setField(263, "1");
  v.setField(264, depth);
  for (const char* t : {"0", "1", "2"}) {
    FIX::Group g(267, 269);
    g.setField(269, t);
    v.addGroup(g);
  }
  FIX::Group s(146, 55);
  s.setField(55, symbol);
  v.addGroup(s);
  return v;
}

std::function<bool(const FIX::Message&)> FirstIncremental(const std::string& type,
                                                          const std::string& qty,
                                                          const std::string& action) {
  return [type, qty, action](const FIX::Message& x) {
    if (F(x, 35) != "X") return false;
    FIX::Group g(268, 279);
    x.getGroup(1, g);
    return g.getField(269) == type && g.getField(271) == qty &&
           (action.empty() || g.getField(279) == action);
  };
}

std::string F(const FIX::Message& m, int tag) {
  if (m.isSetField(tag)) return m.getField(tag);
  if (m.getHeader().isSetField(tag)) return m.getHeader().getField(tag);
  return "";
}

FIX::Message NewOrderMsg(const std::string& cl, const std::string& account, char side, int qty,
                         const std::string& px, const std::string& symbol) {
  FIX::Message m;
  m.getHeader().setField(35, "D");
  m.setField(11, cl);
  m.setField(1, account);
  m.setField(55, symbol);
  m.setField(54, std::string(1, side));
  m.setField(38, std::to_string(qty));
  m.setField(40, px.empty() ? "1" : "2");
  if (!px.empty()) m.setField(44, px);
  m.setField(60, UtcNow());
  return m;
}

FIX::Message CancelMsg(const std::string& cl, const std::string& orig, const std::string& account) {
  FIX::Message m;
  m.getHeader().setField(35, "F");
  m.setField(11, cl);
  m.setField(41, orig);
  m.setField(1, account);
  m.setField(55, kSym);
  m.setField(54, "1");
  m.setField(60, UtcNow());
  return m;
}

FIX::Message ReplaceMsg(const std::string& cl, const std::string& orig, const std::string& account,
                        const std::string& px, int qty) {
  FIX::Message m;
  m.getHeader().setField(35, "G");
  m.setField(11, cl);
  m.setField(41, orig);
  m.setField(1, account);
  m.setField(55, kSym);
  m.setField(54, "1");
  m.setField(40, "2");
  if (!px.empty()) m.setField(44, px);
  if (qty > 0) m.setField(38, std::to_string(qty));
  m.setField(60, UtcNow());
  return m;
}

RawSocket::RawSocket(int port, const char* ipv4, int receive_buffer_bytes) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (receive_buffer_bytes > 0) {
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes, sizeof receive_buffer_bytes);
  }
  timeval send_timeout{kWaitMs / 1000, 0};
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, ipv4, &addr.sin_addr) != 1 ||
      connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd_);
    fd_ = -1;
  }
}

RawSocket::~RawSocket() {
  if (fd_ >= 0) close(fd_);
}

bool RawSocket::Write(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string RawSocket::Read(int ms, bool* closed) {
  std::string out;
  *closed = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    if (left <= 0) return out;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) return out;
    char buf[65536];
    ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) {
      *closed = true;
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

namespace {

// True once `out` holds `needle` and the end (CheckSum) of the message it stands in.
bool HoldsWholeMessageWith(const std::string& out, const std::string& needle) {
  const size_t at = out.find(needle);
  if (at == std::string::npos) return false;
  const size_t checksum = out.find("\x01" "10=", at);
  return checksum != std::string::npos && out.find('\x01', checksum + 4) != std::string::npos;
}

}  // namespace

std::string RawSocket::ReadUntil(const std::string& needle, int ms, bool* closed) {
  std::string out;
  *closed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!HoldsWholeMessageWith(out, needle) && !*closed &&
         std::chrono::steady_clock::now() < deadline) {
    out += Read(50, closed);
  }
  return out;
}

std::string Frame(const std::string& body_fields, bool corrupt_checksum) {
  std::string body = body_fields;
  for (char& c : body) {
    if (c == '|') c = '\x01';
  }
  if (!body.empty() && body.back() != '\x01') body += '\x01';
  std::string msg =
      "8=FIX.4.4\x01"
      "9=" +
      std::to_string(body.size()) + "\x01" + body;
  unsigned sum = 0;
  for (unsigned char c : msg) sum += c;
  sum = (sum + (corrupt_checksum ? 1 : 0)) % 256;
  char cs[8];
  std::snprintf(cs, sizeof(cs), "%03u", sum);
  return msg + "10=" + cs + "\x01";
}

std::string WireField(const std::string& message, int tag) {
  const std::string key = "\001" + std::to_string(tag) + "=";
  const size_t at = message.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  return message.substr(from, message.find('\001', from) - from);
}

std::string UtcNow() {
  return ::cfx::gateway::internal::UtcNowFix();
}  // the gateway's own clock format

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string TempDir() {
  char tmpl[] = "/tmp/cfx_fix_test_XXXXXX";
  char* d = mkdtemp(tmpl);
  return d ? std::string(d) : std::string("/tmp");
}

FixGatewayConfig FixGatewayTest::MakeConfig() {
  FixGatewayConfig c;
  c.port = port_;
  c.data_dir = dir_ + "/gw";
  c.message_log = getenv("CFX_FIX_LOG") != nullptr;
  auto session = [](const std::string& id, const std::string& firm, bool dc, const std::string& pw,
                    bool cod, int rate) {
    FixSessionSpec s;
    s.sender_comp_id = id;
    s.firm = firm;
    s.drop_copy = dc;
    s.has_password = !pw.empty();
    // The test limits (microseconds to verify); `cfx passwd` uses the interactive ones.
    if (s.has_password) EXPECT_TRUE(common::HashPassword(pw, common::MinimumLimits(), &s.password_hash));
    s.cancel_on_disconnect = cod;
    s.throttle_msgs_per_sec = rate;
    return s;
  };
  c.sessions = {session("ALPHA_T1", "ALPHA", false, "alpha-secret", true, 1000),
                session("ALPHA_T2", "ALPHA", false, "", true, 1000),
                session("ALPHA_DC", "ALPHA", true, "", false, 1000),
                session("BETA_T1", "BETA", false, "", false, 1000),
                session("BETA_DC", "BETA", true, "", false, 1000),
                session("THROTTLED", "BETA", false, "", false, 5)};
  c.accounts = {{"A1", "ALPHA"}, {"A2", "ALPHA"}, {"B1", "BETA"}};
  return c;
}

void FixGatewayTest::SetUp() {
  port_ = FreePort();
  dir_ = TempDir();
  dictionary_ = dir_ + "/CFX-FIX44.xml";
  ASSERT_TRUE(WriteFixDictionary(dictionary_).ok());
  StartGateway();
}

void FixGatewayTest::StartGateway(const std::string& listen_address) {
  exchange_.reset(new testing::FakeExchange({kSym, kSym2}));
  FixGatewayConfig config = MakeConfig();
  config.listen_address = listen_address;
  if (configure_) configure_(config);
  gateway_.reset(new FixGateway(config, exchange_.get()));
  exchange_->SetListener(gateway_.get());
  exchange_->Start();
  absl::Status st = gateway_->Start();
  ASSERT_TRUE(st.ok()) << st;
  exchange_->Drain();
}

void FixGatewayTest::StopGateway() {
  if (gateway_) gateway_->Stop();
  if (exchange_) exchange_->Stop();  // delivers what the logouts queued
  gateway_.reset();
  exchange_.reset();
}

void FixGatewayTest::TearDown() {
  StopGateway();
  if (dir_.rfind("/tmp/cfx_fix_test_", 0) == 0) {  // only what SetUp made
    const std::string rm = "rm -rf '" + dir_ + "'";
    if (std::system(rm.c_str()) != 0) ADD_FAILURE() << rm;
  }
}

std::unique_ptr<TestClient> FixGatewayTest::Connect(const std::string& sender,
                                                    const std::string& password,
                                                    bool expect_logon) {
  std::string dir = dir_ + "/client_" + sender;
  std::string mk = "mkdir -p " + dir;
  if (std::system(mk.c_str()) != 0) ADD_FAILURE() << "mkdir " << dir;
  std::unique_ptr<TestClient> c(new TestClient(sender, port_, dir, dictionary_, password));
  c->Start();
  if (expect_logon) {
    EXPECT_TRUE(c->WaitLogon()) << sender << " did not log on";
    // QuickFIX answers the Logon before it tells the gateway: wait for the gateway's side
    // too, so a test starts trading only once every session is logged on at both ends.
    for (int i = 0; i < 500 && !gateway_->IsLoggedOn(sender); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(gateway_->IsLoggedOn(sender)) << sender << " not logged on at the gateway";
  }
  return c;
}

std::string SplitChecked(const std::string& bytes, std::vector<std::string>* out) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    const std::string rest = bytes.substr(pos, 32);
    const size_t soh = bytes.find('\001', pos);
    if (bytes.compare(pos, 10, "8=FIX.4.4\001", 0, std::min<size_t>(10, bytes.size() - pos)) != 0) {
      return "not a message start at byte " + std::to_string(pos) + ": " + rest;
    }
    if (soh == std::string::npos || soh + 3 > bytes.size()) return "";
    if (bytes.compare(soh + 1, 2, "9=") != 0) {
      return "no BodyLength at byte " + std::to_string(pos) + ": " + rest;
    }
    const size_t soh2 = bytes.find('\001', soh + 1);
    if (soh2 == std::string::npos) return "";
    const std::string len_text = bytes.substr(soh + 3, soh2 - soh - 3);
    if (len_text.empty() || len_text.find_first_not_of("0123456789") != std::string::npos) {
      return "bad BodyLength '" + len_text + "' at byte " + std::to_string(pos);
    }
    const size_t trailer = soh2 + 1 + std::stoul(len_text);
    if (trailer + 7 > bytes.size()) return "";
    if (bytes.compare(trailer, 3, "10=") != 0 || bytes[trailer + 6] != '\001') {
      return "BodyLength does not end at the CheckSum at byte " + std::to_string(pos);
    }
    unsigned sum = 0;
    for (size_t i = pos; i < trailer; ++i) sum += static_cast<unsigned char>(bytes[i]);
    char want[4];
    std::snprintf(want, sizeof want, "%03u", sum % 256);
    if (bytes.compare(trailer + 3, 3, want) != 0) {
      return "bad CheckSum at byte " + std::to_string(pos);
    }
    out->push_back(bytes.substr(pos, trailer + 7 - pos));
    pos = trailer + 7;
  }
  return "";
}

}  // namespace test
}  // namespace gateway
}  // namespace cfx
