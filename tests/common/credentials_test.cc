// Password hashes and token digests (cfx/common/credentials.h), and what a verification
// costs at the limits `cfx passwd` uses (the figure in docs/fix.md).
#include "cfx/common/credentials.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cfx::common {
namespace {

TEST(CredentialsTest, HashedPasswordVerifiesAndAWrongOneDoesNot) {
  std::string phc;
  ASSERT_TRUE(HashPassword("alpha-secret", MinimumLimits(), &phc));
  EXPECT_EQ(phc.rfind("$argon2id$v=19$m=8,t=1,p=1$", 0), 0u) << phc;
  EXPECT_TRUE(IsPasswordHash(phc));
  EXPECT_TRUE(VerifyPassword(phc, "alpha-secret"));
  EXPECT_FALSE(VerifyPassword(phc, "alpha-secreT"));
  EXPECT_FALSE(VerifyPassword(phc, ""));
  std::string again;
  ASSERT_TRUE(HashPassword("alpha-secret", MinimumLimits(), &again));
  EXPECT_NE(again, phc);  // a fresh salt each time
  EXPECT_TRUE(VerifyPassword(again, "alpha-secret"));
}

TEST(CredentialsTest, MalformedHashesAreRefusedWithoutVerifying) {
  for (const std::string& bad : std::vector<std::string>{
           "", "alpha-secret", "$argon2id$", "$argon2id$v=19$m=8,t=1,p=1$AAAA",
        std::string("$argon2id$v=19$m=8,t=1,p=1$") + std::string(200, 'A')}) {
    EXPECT_FALSE(IsPasswordHash(bad)) << bad;
    EXPECT_FALSE(VerifyPassword(bad, "alpha-secret")) << bad;
  }
  std::string phc;
  ASSERT_TRUE(HashPassword("pw", MinimumLimits(), &phc));
  EXPECT_FALSE(IsPasswordHash(phc + std::string(1, '\0') + "x"));
  EXPECT_FALSE(HashPassword("pw", {0, 0}, &phc));  // below libsodium's minimum
}

TEST(CredentialsTest, TokenDigestIsSha256Hex) {
  EXPECT_EQ(TokenSha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_TRUE(IsSha256Hex(TokenSha256Hex("tok-alpha")));
  EXPECT_TRUE(IsSha256Hex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
  EXPECT_FALSE(IsSha256Hex("ba7816bf"));
  EXPECT_FALSE(IsSha256Hex(std::string(64, 'g')));
  EXPECT_TRUE(ConstantTimeEquals("same", "same"));
  EXPECT_FALSE(ConstantTimeEquals("same", "sama"));
  EXPECT_FALSE(ConstantTimeEquals("same", "same!"));
}

// The cost a Logon pays at libsodium's interactive limits (what `cfx passwd` writes):
// printed, not asserted (STYLE.md: speed is measured, never a unit-test limit).
TEST(CredentialsTest, ReportsVerifyCostAtInteractiveLimits) {
  std::string phc;
  ASSERT_TRUE(HashPassword("alpha-secret", InteractiveLimits(), &phc));
  constexpr int kRuns = 3;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(VerifyPassword(phc, "alpha-secret"));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      kRuns;
  std::string min_phc;
  ASSERT_TRUE(HashPassword("alpha-secret", MinimumLimits(), &min_phc));
  const auto min_start = std::chrono::steady_clock::now();
  ASSERT_TRUE(VerifyPassword(min_phc, "alpha-secret"));
  const double min_ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - min_start)
                            .count();
  std::printf("argon2id verify: %.1f ms at the interactive limits (%s), %.3f ms at the minimum\n",
              ms, phc.substr(0, phc.find('$', 16)).c_str(), min_ms);
}

}  // namespace
}  // namespace cfx::common
