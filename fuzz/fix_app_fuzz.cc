// The FIX application layer behind QuickFIX: every message type the gateway handles (D F G H
// q V x, and the admin messages), with arbitrary field values, through FixGateway's
// Application callbacks into a FakeExchange and back out as reports. Two modes (first byte):
// messages built field by field (values QuickFIX's dictionary would never let through, so the
// gateway's own checks are what is tested), and raw wire bytes parsed with the gateway's
// dictionary as QuickFIX does. Only QuickFIX's own exceptions (its way of sending a session
// reject) may leave a callback. C++14: QuickFIX headers.
#include <fuzzer/FuzzedDataProvider.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cfx/gateway/fix_fake_exchange.h"
#include "cfx/gateway/fix_gateway.h"
#include "fix_gateway_impl.h"

namespace {

using cfx::gateway::FixGateway;

const char* const kSessions[] = {"ALPHA_T1", "ALPHA_DC", "BETA_T1", "SLOW"};

struct Fixture {
  std::string dictionary_path;
  std::unique_ptr<FIX::DataDictionary> dictionary;
  std::unique_ptr<cfx::gateway::testing::FakeExchange> exchange;
  std::unique_ptr<FixGateway> gateway;

  Fixture() {
    char tmpl[] = "/tmp/cfx_fuzz_fix_XXXXXX";
    const char* dir = ::mkdtemp(tmpl);
    if (dir == nullptr) abort();
    static std::string to_remove = dir;
    ::atexit([] {
      const std::string rm = "rm -rf '" + to_remove + "'";
      if (std::system(rm.c_str()) != 0) std::perror("rm");
    });
    dictionary_path = std::string(dir) + "/CFX-FIX44.xml";
    if (!cfx::gateway::WriteFixDictionary(dictionary_path).ok()) abort();
    dictionary.reset(new FIX::DataDictionary(dictionary_path));
    cfx::gateway::FixGatewayConfig config;
    config.data_dir = std::string(dir) + "/gw";
    auto session = [](const char* id, const char* firm, bool drop_copy, int rate) {
      cfx::gateway::FixSessionSpec s;
      s.sender_comp_id = id;
      s.firm = firm;
      s.drop_copy = drop_copy;
      s.throttle_msgs_per_sec = rate;
      return s;
    };
    config.sessions = {session("ALPHA_T1", "ALPHA", false, 1000000000),
                       session("ALPHA_DC", "ALPHA", true, 1000000000),
                       session("BETA_T1", "BETA", false, 1000000000),
                       session("SLOW", "BETA", false, 1)};
    config.accounts = {{"A1", "ALPHA"}, {"A2", "ALPHA"}, {"B1", "BETA"}};
    exchange.reset(new cfx::gateway::testing::FakeExchange(
        {"B200-GOLD-US-202703", "B200-SILV-EU-202704"}));
    gateway.reset(new FixGateway(config, exchange.get()));
    exchange->SetListener(gateway.get());
    exchange->Start();
  }
};

std::string Value(FuzzedDataProvider& in) {
  std::string v = in.ConsumeRandomLengthString(80);
  for (char& c : v) {
    if (c == '\x01') c = '|';  // SOH cannot reach the application: it ends a field
  }
  return v;
}

FIX::Message Built(FuzzedDataProvider& in) {
  static const char* const kTypes[] = {"D", "F", "G", "H", "q", "V", "x", "8", "j", "AE"};
  static const int kTags[] = {1,   11,  41,  55,  54,   38,   40,  44,  99,  59,  126, 18,
                              111, 7928, 8000, 530, 790, 262, 263, 264, 265, 146, 267, 269,
                              320, 559, 60,  58,  37,  48,  22,  207};
  FIX::Message m;
  m.getHeader().setField(35, kTypes[in.ConsumeIntegralInRange<int>(0, 9)]);
  const int fields = in.ConsumeIntegralInRange<int>(0, 24);
  for (int i = 0; i < fields && in.remaining_bytes() > 0; ++i) {
    const int tag = in.ConsumeBool() ? kTags[in.ConsumeIntegralInRange<int>(0, 31)]
                                     : in.ConsumeIntegralInRange<int>(1, 10000);
    const std::string value = Value(in);
    if (tag == 35 || value.empty()) continue;
    m.setField(tag, value);
  }
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* f = new Fixture();
  FuzzedDataProvider in(data, size);
  const std::string client = kSessions[in.ConsumeIntegralInRange<int>(0, 3)];
  const FIX::SessionID id(FIX::BeginString("FIX.4.4"), FIX::SenderCompID("CFX"),
                          FIX::TargetCompID(client));
  FixGateway::Impl& app = f->gateway->impl_for_fuzzing();
  const bool wire = in.ConsumeBool();
  try {
    if (wire) {
      const std::string bytes = in.ConsumeRemainingBytesAsString();
      FIX::Message m(bytes, *f->dictionary, true);
      if (!m.getHeader().isSetField(35)) return 0;
      if (m.isAdmin()) {
        app.fromAdmin(m, id);
      } else {
        app.fromApp(m, id);
      }
    } else {
      FIX::Message m = Built(in);
      app.fromApp(m, id);
    }
  } catch (const FIX::Exception&) {
    // QuickFIX's own: it answers the client with a session-level reject.
  }
  f->exchange->Drain();
  return 0;
}
