// A real ExchangeServer in a test's own folder, for the C++20 serve tests: `StartServer`
// starts one on the test exchange (serve_harness.h's ServeConfigText) with ephemeral ports,
// a manual clock at 2027-03-01T14:00:00Z and the FIX message log on; the folder is removed
// after the test.
#ifndef CFX_TESTS_GATEWAY_SERVE_SERVER_TEST_H_
#define CFX_TESTS_GATEWAY_SERVE_SERVER_TEST_H_

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/gateway/exchange_server.h"
#include "fresh_dir.h"
#include "gtest/gtest.h"
#include "serve_harness.h"

namespace cfx::gateway::test {

class ServeServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testsupport::FreshDir(std::string("cfx_serve_") +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    data_ = dir_ + "/data";
  }
  void TearDown() override {
    if (server_) (void)server_->Stop();
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  absl::Status StartServer(DataDirMode mode = DataDirMode::kCreate) {
    auto config = common::ParseConfig(ServeConfigText(data_), "serve-test");
    if (!config.ok()) return config.status();
    ExchangeServerOptions options;
    options.fix_port = 0;
    options.http_port = 0;
    options.manual_clock = true;
    options.start_time = *common::ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
    options.fix_message_log = true;  // the log must not hold a password either
    options.config_path = "serve-test.toml";
    options.data_dir_mode = mode;
    server_ = std::make_unique<ExchangeServer>(*config, options);
    return server_->Start();
  }

  std::string dir_, data_;
  std::unique_ptr<ExchangeServer> server_;
};

}  // namespace cfx::gateway::test

#endif  // CFX_TESTS_GATEWAY_SERVE_SERVER_TEST_H_
