// `cfx bench fix`: real FIX sessions over loopback, NewOrderSingle -> first ExecutionReport.
#include "cfx/perf/fix_bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cfx/client/fix_session.h"
#include "cfx/client/initiator_threads.h"
#include "cfx/gateway/fix_fake_exchange.h"
#include "cfx/gateway/fix_gateway.h"
#include "cfx/gateway/fix_quickfix.h"
#include "timing.h"
#include "work_dir.h"

namespace cfx {
namespace perf {

namespace qf = gateway::internal;  // fix_quickfix.h's message helpers
using namespace cfx::gateway;      // NOLINT(build/namespaces): the bench drives the gateway
namespace {

using Clock = std::chrono::steady_clock;
const char kBenchSymbol[] = "B200-GOLD-US-202703";
const char kBenchFirm[] = "BENCH";
const char kBenchAccount[] = "BENCH-1";

std::string SessionName(int i) { return "BENCH_" + std::to_string(i); }

// A FIX::Application that ignores every callback but fromApp; subclasses override what
// they need.
class QuietApplication : public FIX::Application {
 public:
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override {}
  void onLogout(const FIX::SessionID&) override {}
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message&,
                 const FIX::SessionID&) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                              FIX::IncorrectTagValue, FIX::RejectLogon) override {}
};

// The --echo server: answers each order with one ExecutionReport and nothing else (after
// `before_echo`, when set).
class EchoApp : public QuietApplication {
 public:
  void set_before_echo(std::function<void()> hook) { before_echo_ = std::move(hook); }
  void fromApp(const FIX::Message& m,
               const FIX::SessionID& id) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                               FIX::IncorrectTagValue,
                                               FIX::UnsupportedMessageType) override {
    if (m.getHeader().getField(35) != "D") throw FIX::UnsupportedMessageType();
    if (before_echo_) before_echo_();
    FIX::Message er = qf::NewMessage("8");
    const uint64_t n = ++seq_;
    er.setField(37, std::to_string(n));
    er.setField(11, m.getField(11));
    er.setField(17, "E" + std::to_string(n));
    er.setField(150, "0");
    er.setField(39, "0");
    er.setField(1, qf::FieldOr(m, 1));
    er.setField(55, m.getField(55));
    er.setField(54, m.getField(54));
    er.setField(38, m.getField(38));
    er.setField(40, m.getField(40));
    er.setField(44, qf::FieldOr(m, 44, "0"));
    er.setField(151, m.getField(38));
    er.setField(14, "0");
    er.setField(6, "0");
    er.setField(60, qf::UtcNowFix());
    FIX::Session::sendToTarget(er, id);
  }

 private:
  std::function<void()> before_echo_;
  std::atomic<uint64_t> seq_{0};
};

// The load generator: N initiator sessions; records the time of each order's first report.
class BenchClient : public QuietApplication {
 public:
  explicit BenchClient(int sessions) : states_(sessions) {}

  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Clock::time_point> sent;
    std::vector<int64_t> latency_ns;
    int64_t acked = 0;
    bool logged_on = false;
  };

  State& state(int i) { return states_[i]; }

  void onLogon(const FIX::SessionID& id) override {
    State& s = Of(id);
    std::lock_guard<std::mutex> lock(s.mu);
    s.logged_on = true;
    s.cv.notify_all();
  }
  void onLogout(const FIX::SessionID& id) override {
    State& s = Of(id);
    std::lock_guard<std::mutex> lock(s.mu);
    s.logged_on = false;
    s.cv.notify_all();
  }
  void fromApp(const FIX::Message& m,
               const FIX::SessionID& id) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                               FIX::IncorrectTagValue,
                                               FIX::UnsupportedMessageType) override {
    const Clock::time_point now = Clock::now();
    if (m.getHeader().getField(35) != "8") return;
    const std::string type = qf::FieldOr(m, 150);
    if (type != "0" && type != "8") return;  // the acknowledgement, not fills
    const std::string cl = qf::FieldOr(m, 11);
    size_t dash = cl.rfind('-');
    if (dash == std::string::npos) return;
    size_t n = static_cast<size_t>(std::strtoull(cl.c_str() + dash + 1, nullptr, 10));
    State& s = Of(id);
    std::lock_guard<std::mutex> lock(s.mu);
    if (n < s.sent.size()) {
      s.latency_ns.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now - s.sent[n]).count());
    }
    ++s.acked;
    s.cv.notify_all();
  }

 private:
  State& Of(const FIX::SessionID& id) {
    const std::string name = id.getSenderCompID().getValue();
    return states_[std::atoi(name.c_str() + 6)];  // "BENCH_<i>"
  }
  std::vector<State> states_;
};

FIX::Dictionary CommonSettings(const std::string& dir, const std::string& dictionary) {
  FIX::Dictionary d;
  d.setString("StartTime", "00:00:00");
  d.setString("EndTime", "00:00:00");
  d.setInt("HeartBtInt", 30);
  d.setBool("UseDataDictionary", true);
  d.setString("DataDictionary", dictionary);
  d.setString("FileStorePath", dir);
  d.setBool("SocketNodelay", true);
  d.setBool("PersistMessages", true);
  d.setBool("ResetOnLogon", true);
  d.setBool("CheckLatency", false);
  return d;
}

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

FixBenchPhase Summarize(BenchClient& client, int sessions, double seconds) {
  std::vector<int64_t> all;
  for (int i = 0; i < sessions; ++i) {
    BenchClient::State& s = client.state(i);
    std::lock_guard<std::mutex> lock(s.mu);
    all.insert(all.end(), s.latency_ns.begin(), s.latency_ns.end());
  }
  std::sort(all.begin(), all.end());
  FixBenchPhase p;
  p.orders = static_cast<int64_t>(all.size());
  p.seconds = seconds;
  p.orders_per_sec = seconds > 0 ? all.size() / seconds : 0;
  p.p50_us = internal::PercentileUs(all, 0.50);
  p.p99_us = internal::PercentileUs(all, 0.99);
  p.p999_us = internal::PercentileUs(all, 0.999);
  return p;
}

// Sends `per_session` orders on every session with at most `window` unacknowledged.
FixBenchPhase RunPhase(BenchClient& client, const std::vector<FIX::SessionID>& ids,
                       int64_t per_session, int window, bool cross, const std::string& tag) {
  const int sessions = static_cast<int>(ids.size());
  for (int i = 0; i < sessions; ++i) {
    BenchClient::State& s = client.state(i);
    std::lock_guard<std::mutex> lock(s.mu);
    s.sent.assign(static_cast<size_t>(per_session), Clock::time_point());
    s.latency_ns.clear();
    s.acked = 0;
  }
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < sessions; ++i) {
    threads.emplace_back([&, i] {
      BenchClient::State& s = client.state(i);
      for (int64_t n = 0; n < per_session; ++n) {
        {
          std::unique_lock<std::mutex> lock(s.mu);
          s.cv.wait_for(lock, std::chrono::seconds(10),
                        [&] { return n - s.acked < window || !s.logged_on; });
          if (!s.logged_on) return;
          s.sent[static_cast<size_t>(n)] = Clock::now();
        }
        FIX::Message d = qf::NewMessage("D");
        d.setField(11, tag + std::to_string(i) + "-" + std::to_string(n));
        d.setField(1, kBenchAccount);
        d.setField(55, kBenchSymbol);
        // Alternating sides: at one price they cross and the book stays small; apart they
        // rest (FixBenchOptions::cross).
        const bool sell = (n + i) % 2 != 0;
        d.setField(54, sell ? "2" : "1");
        d.setField(38, "1");
        d.setField(40, "2");
        d.setField(44, cross ? "5.000" : sell ? "5.100" : "4.900");
        d.setField(60, qf::UtcNowFix());
        FIX::Session::sendToTarget(d, ids[static_cast<size_t>(i)]);
      }
      std::unique_lock<std::mutex> lock(s.mu);
      s.cv.wait_for(lock, std::chrono::seconds(30), [&] { return s.acked >= per_session; });
    });
  }
  for (std::thread& t : threads) t.join();
  return Summarize(client, sessions, internal::SecondsSince(start));
}

absl::Status CheckOptions(const FixBenchOptions& options) {
  if (options.sessions < 1 || options.sessions > 64 || options.orders < 1 || options.window < 1) {
    return absl::InvalidArgumentError("need 1..64 sessions, orders >= 1, window >= 1");
  }
  if (options.external && options.port <= 0) {
    return absl::InvalidArgumentError("an external server needs its port");
  }
  return absl::OkStatus();
}

// The work folder: the data dictionary both sides load, and the QuickFIX stores of the
// echo acceptor and of the initiator.
absl::Status PrepareDir(const std::string& dir, const std::string& dictionary) {
  absl::Status st = WriteFixDictionary(dictionary);
  if (!st.ok()) return st;
  if (!internal::MakeDirs(dir + "/echo") || !internal::MakeDirs(dir + "/client")) {
    return absl::UnavailableError("cannot create " + dir);
  }
  return absl::OkStatus();
}

// One run: the server side (the gateway on the fake exchange, or the echo acceptor; none
// when the caller runs the server) and the initiator's sessions. Members are destroyed in
// reverse order, the initiator before the servers it talks to.
class BenchRun {
 public:
  BenchRun(const FixBenchOptions& options, const std::string& dir, int port)
      : options_(options),
        dir_(dir),
        dictionary_(dir + "/CFX-FIX44.xml"),
        port_(port),
        exchange_({kBenchSymbol}, 1000000),
        client_(options.sessions) {}

  const std::string& dictionary() const { return dictionary_; }

  // Starts the server side, then the initiator. Unavailable when QuickFIX refuses a
  // setting or a socket.
  absl::Status Start() {
    try {
      absl::Status st = options_.external ? absl::OkStatus()
                        : options_.echo   ? StartEcho()
                                          : StartGateway();
      if (!st.ok()) return st;
      StartInitiator();
    } catch (const std::exception& e) {
      return absl::UnavailableError(std::string("FIX bench setup: ") + e.what());
    }
    return absl::OkStatus();
  }

  // Waits up to 10 s for each session's logon.
  absl::Status WaitForLogons() {
    for (int i = 0; i < options_.sessions; ++i) {
      BenchClient::State& s = client_.state(i);
      std::unique_lock<std::mutex> lock(s.mu);
      if (!s.cv.wait_for(lock, std::chrono::seconds(10), [&] { return s.logged_on; })) {
        return absl::UnavailableError("session " + SessionName(i) + " did not log on");
      }
    }
    return absl::OkStatus();
  }

  // One order at a time per session, then `window` in flight per session.
  void RunPhases(FixBenchResult* result) {
    const int64_t per_session = std::max<int64_t>(1, options_.orders / options_.sessions);
    result->one_at_a_time = RunPhase(client_, ids_, per_session, 1, options_.cross, "a");
    if (options_.after_phase) options_.after_phase("one_at_a_time");
    result->pipelined = RunPhase(client_, ids_, per_session, options_.window, options_.cross, "p");
    if (options_.after_phase) options_.after_phase("pipelined");
  }

  void Stop() {
    initiator_->stop(true);
    // A connection thread QuickFIX detached may still be calling into the initiator
    // (client/initiator_threads.h): the initiator is destroyed only after the last one.
    if (!client_threads_.WaitAllEnded(std::chrono::seconds(5))) (void)initiator_.release();
    if (gateway_) gateway_->Stop();
    if (!options_.external) exchange_.Stop();
    if (echo_) echo_->stop(true);
  }

 private:
  // Throws FIX::ConfigError or FIX::RuntimeError.
  absl::Status StartEcho() {
    FIX::Dictionary d = CommonSettings(dir_ + "/echo", dictionary_);
    d.setString("ConnectionType", "acceptor");
    d.setInt("SocketAcceptPort", port_);
    d.setBool("SocketReuseAddress", true);
    echo_settings_.set(d);
    for (int i = 0; i < options_.sessions; ++i) {
      echo_settings_.set(FIX::SessionID("FIX.4.4", "CFX", SessionName(i)), FIX::Dictionary());
    }
    echo_store_.reset(new FIX::FileStoreFactory(echo_settings_));
    echo_app_.set_before_echo(options_.before_echo);
    echo_.reset(new FIX::ThreadedSocketAcceptor(echo_app_, *echo_store_, echo_settings_));
    echo_->start();
    return absl::OkStatus();
  }

  absl::Status StartGateway() {
    FixGatewayConfig config;
    config.port = port_;
    config.data_dir = dir_ + "/gateway";
    for (int i = 0; i < options_.sessions; ++i) {
      FixSessionSpec s;
      s.sender_comp_id = SessionName(i);
      s.firm = kBenchFirm;
      s.cancel_on_disconnect = false;
      s.throttle_msgs_per_sec = 1000000000;
      s.reset_on_logon = true;
      config.sessions.push_back(s);
    }
    config.accounts.push_back({kBenchAccount, kBenchFirm});
    gateway_.reset(new FixGateway(config, &exchange_));
    exchange_.SetListener(gateway_.get());
    exchange_.Start();
    return gateway_->Start();
  }

  // Throws FIX::ConfigError or FIX::RuntimeError.
  void StartInitiator() {
    client::FixClientOptions o;
    o.port = port_;
    o.store_dir = dir_ + "/client";
    FIX::Dictionary c = client::InitiatorSettings(o, dictionary_);
    client_settings_.set(c);
    for (int i = 0; i < options_.sessions; ++i) {
      ids_.emplace_back("FIX.4.4", SessionName(i), "CFX");
      client_settings_.set(ids_.back(), FIX::Dictionary());
    }
    client_store_.reset(new FIX::FileStoreFactory(client_settings_));
    initiator_.reset(new FIX::ThreadedSocketInitiator(client_, *client_store_, client_settings_,
                                                      client_threads_));
    initiator_->start();
  }

  const FixBenchOptions options_;
  const std::string dir_;
  const std::string dictionary_;
  const int port_;
  testing::FakeExchange exchange_;
  std::unique_ptr<FixGateway> gateway_;
  EchoApp echo_app_;
  FIX::SessionSettings echo_settings_;
  std::unique_ptr<FIX::FileStoreFactory> echo_store_;
  std::unique_ptr<FIX::ThreadedSocketAcceptor> echo_;
  BenchClient client_;
  FIX::SessionSettings client_settings_;
  std::unique_ptr<FIX::FileStoreFactory> client_store_;
  client::InitiatorThreads client_threads_;  // outlives initiator_, built on it
  std::unique_ptr<FIX::ThreadedSocketInitiator> initiator_;
  std::vector<FIX::SessionID> ids_;
};

}  // namespace

absl::Status RunFixBench(const FixBenchOptions& options, FixBenchResult* result) {
  absl::Status st = CheckOptions(options);
  if (!st.ok()) return st;
  const bool temporary = options.data_dir.empty();
  const std::string dir =
      temporary ? internal::MakeTempDir("/tmp/cfx_bench_fix_XXXXXX") : options.data_dir;
  if (dir.empty()) return absl::UnavailableError("mkdtemp failed");
  const int port = options.port ? options.port : FreeLoopbackPort();
  {
    BenchRun run(options, dir, port);
    st = PrepareDir(dir, run.dictionary());
    if (st.ok()) st = run.Start();
    if (st.ok()) st = run.WaitForLogons();
    if (st.ok()) {
      run.RunPhases(result);
      run.Stop();
    }
  }  // what a failed start left running is stopped by the destructors, before the files go
  if (temporary) internal::RemoveDirQuietly(dir);
  return st;
}

}  // namespace perf
}  // namespace cfx
