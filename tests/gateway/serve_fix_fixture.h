// The fixture of the `cfx serve` FIX tests (serve_fix_test.cc, serve_fix_amend_test.cc): a
// real ExchangeServer (core + engine + journal, serve_harness.h) in a fresh folder, and
// QuickFIX test clients logged on to it. C++14, like every file that includes QuickFIX.
#ifndef CFX_TESTS_GATEWAY_SERVE_FIX_FIXTURE_H_
#define CFX_TESTS_GATEWAY_SERVE_FIX_FIXTURE_H_

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "fix_test_client.h"
#include "gtest/gtest.h"
#include "serve_harness.h"

namespace cfx {
namespace gateway {
namespace test {

class ServeFixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    dictionary_ = dir_ + "/CFX-FIX44.xml";
    ASSERT_TRUE(WriteFixDictionary(dictionary_).ok());
    StartServer();
  }
  void TearDown() override {
    clients_.clear();
    StopServer();
    std::string rm = "rm -rf '" + dir_ + "'";
    if (std::system(rm.c_str()) != 0) ADD_FAILURE() << rm;
  }
  void StartServer(const std::string& limits = "") {
    std::string error;
    server_ = ServeHarness::Start(dir_ + "/data", &error, limits);
    ASSERT_TRUE(server_ != nullptr) << error;
  }
  void StopServer() {
    if (!server_) return;
    std::string error;
    EXPECT_TRUE(server_->Stop(&error)) << error;
    server_.reset();
  }
  // Stops every client and the server, and starts the server again on the same data dir
  // (the clients' stores stay: a client connected again goes on with its sequence numbers).
  void RestartServer(const std::string& limits = "") {
    for (auto& c : clients_) c->Stop();
    clients_.clear();
    StopServer();
    StartServer(limits);
  }
  TestClient* Connect(const std::string& sender, const std::string& password = "") {
    std::string dir = dir_ + "/client_" + sender;
    std::string mk = "mkdir -p " + dir;
    if (std::system(mk.c_str()) != 0) ADD_FAILURE() << mk;
    clients_.emplace_back(new TestClient(sender, server_->fix_port(), dir, dictionary_, password));
    clients_.back()->Start();
    EXPECT_TRUE(clients_.back()->WaitLogon()) << sender << " did not log on";
    return clients_.back().get();
  }
  static FIX::Message Status(const std::string& cl, const std::string& account) {
    return StatusMsg(cl, account);
  }

  std::string dir_, dictionary_;
  std::unique_ptr<ServeHarness> server_;
  std::vector<std::unique_ptr<TestClient>> clients_;
};

}  // namespace test
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_TESTS_GATEWAY_SERVE_FIX_FIXTURE_H_
