#include "cfx/journal/crc32c.h"

#include <random>
#include <string>

#include "gtest/gtest.h"

namespace cfx::journal {
uint32_t Crc32cSoftwareForTest(uint32_t crc, const void* data, size_t n);
namespace {

TEST(Crc32cTest, MatchesKnownVectors) {
  // RFC 3720 (iSCSI) B.4 test vectors.
  std::string zeros(32, '\0');
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  std::string ones(32, '\xFF');
  EXPECT_EQ(Crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
}

TEST(Crc32cTest, HardwareAndSoftwarePathsAgreeAndExtendComposes) {
  std::mt19937_64 rng(7);
  for (int len = 0; len < 300; ++len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    const uint32_t whole = Crc32c(s.data(), s.size());
    EXPECT_EQ(whole, Crc32cSoftwareForTest(0, s.data(), s.size())) << len;
    const size_t cut = len / 3;
    EXPECT_EQ(whole, Crc32cExtend(Crc32c(s.data(), cut), s.data() + cut, len - cut)) << len;
  }
}

}  // namespace
}  // namespace cfx::journal
