// `cfx serve`'s pre-trade margin check as a FIX client meets it: a contract the risk desk
// has no price for. C++14, like every file that includes QuickFIX.
#include <string>

#include "fix_test_client.h"
#include "fix_test_steps.h"
#include "serve_fix_fixture.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

// A product listed without `ref`, before any fix or settlement: nothing prices its months,
// so the risk desk has no margin for them and the exchange takes no new exposure in them
// (`insufficient_margin`, SPEC §4's check) instead of any size at a margin of 0, as it did
// until 2026-12-07. The priced product next to it trades as before.
TEST_F(ServeFixTest, AContractWithNoPriceTakesNoNewExposureUnderTheMarginCheck) {
  StopServer();
  const std::string text =
      ServeConfigText(dir_ + "/unpriced") + "\n[[products]]\ngrade = \"B200-SILV-US\"\n";
  std::string error;
  server_ = ServeHarness::StartWithConfig(text, &error);
  ASSERT_TRUE(server_ != nullptr) << error;
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  alpha->Send(NewOrderMsg("silver", "A1", '1', 1, "5.000", "B200-SILV-US-202703"));
  ASSERT_TRUE(alpha->WaitExec("silver", '8', &m));
  EXPECT_EQ(F(m, 39), "8");
  EXPECT_EQ(F(m, 58), "insufficient_margin");
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("gold", "A1", '1', 1, "5.000"), '0', &m));
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
