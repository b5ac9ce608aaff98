// One-line steps of the FIX end-to-end tests (fix_gateway_test.cc over the fake exchange,
// serve_fix_test.cc over the real core): send a message, then wait for its answer.
// C++14-clean, like the QuickFIX test translation units that include it.
//
//   ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("o1", "A1", '1', 10, "5.000"), '0', &m));
#ifndef CFX_TESTS_GATEWAY_FIX_TEST_STEPS_H_
#define CFX_TESTS_GATEWAY_FIX_TEST_STEPS_H_

#include <string>

#include "fix_test_client.h"
#include "gtest/gtest.h"

namespace cfx {
namespace gateway {
namespace test {

// Sends `msg` on `client` and waits for the ExecutionReport of its ClOrdID (tag 11) with
// ExecType `exec_type`; the report goes to *report.
inline ::testing::AssertionResult SendAndWaitExec(TestClient& client, const FIX::Message& msg,
                                                  char exec_type, FIX::Message* report) {
  const std::string cl = F(msg, 11);
  client.Send(msg);
  if (client.WaitExec(cl, exec_type, report)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no ExecutionReport 150=" << exec_type << " for " << cl;
}

// Sends `msg` on `client` and waits for the first message of type `msg_type` (tag 35).
inline ::testing::AssertionResult SendAndWaitType(TestClient& client, const FIX::Message& msg,
                                                  const std::string& msg_type,
                                                  FIX::Message* answer) {
  client.Send(msg);
  if (client.WaitType(msg_type, answer)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no message 35=" << msg_type;
}

}  // namespace test
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_TESTS_GATEWAY_FIX_TEST_STEPS_H_
