#include "cfx/replication/batch_format.h"

#include <random>

#include <gtest/gtest.h>

namespace cfx::replication {
namespace {

TEST(BatchFormatTest, RoundTripsInputsOfAnyBytes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> inputs(rng() % 20);
    for (auto& s : inputs) {
      s.resize(rng() % 300);
      for (char& c : s) c = static_cast<char>(rng());
    }
    std::vector<absl::string_view> views(inputs.begin(), inputs.end());
    const uint64_t first = 1 + rng() % 1000000;
    std::string bytes;
    const uint64_t cp_seq = rng() % 2 ? 0 : rng(), cp_hash = rng();
    EncodeBatch(first, views, &bytes, cp_seq, cp_hash);
    BatchView b;
    ASSERT_TRUE(DecodeBatch(bytes, &b).ok());
    EXPECT_EQ(b.first_seq, first);
    EXPECT_EQ(b.checkpoint_seq, cp_seq);
    EXPECT_EQ(b.checkpoint_hash, cp_hash);
    ASSERT_EQ(b.payloads.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(b.payloads[i], inputs[i]);
  }
}

TEST(BatchFormatTest, RejectsEveryTruncationAndTrailingBytes) {
  std::string bytes;
  const std::vector<absl::string_view> views = {"abc", "", "defgh"};
  EncodeBatch(42, views, &bytes);
  BatchView b;
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeBatch(absl::string_view(bytes.data(), n), &b).ok()) << n;
  }
  EXPECT_FALSE(DecodeBatch(bytes + "x", &b).ok());
}

TEST(BatchFormatTest, RejectsBadHeadersAndLengthsNamingTheOffset) {
  std::string good;
  const std::vector<absl::string_view> views = {"abc"};
  EncodeBatch(9, views, &good);
  BatchView b;
  std::string bad = good;
  bad[0] = 'X';
  EXPECT_NE(DecodeBatch(bad, &b).message().find("magic"), std::string::npos);
  bad = good;
  bad[4] = 2;
  EXPECT_NE(DecodeBatch(bad, &b).message().find("version"), std::string::npos);
  bad = good;
  for (int i = 5; i < 13; ++i) bad[i] = 0;  // first_seq 0
  EXPECT_FALSE(DecodeBatch(bad, &b).ok());
  bad = good;
  bad[16] = 0x7f;  // count far beyond the bytes
  EXPECT_FALSE(DecodeBatch(bad, &b).ok());
  bad = good;
  bad[kBatchHeaderSize + 3] = 0x7f;  // input length beyond the bytes
  const absl::Status s = DecodeBatch(bad, &b);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("byte 33"), std::string::npos) << s;
}

TEST(BatchFormatTest, EmptyBatchIsTheGenesisMarker) {
  std::string bytes;
  EncodeBatch(1, {}, &bytes);
  EXPECT_EQ(bytes.size(), kBatchHeaderSize);
  BatchView b;
  ASSERT_TRUE(DecodeBatch(bytes, &b).ok());
  EXPECT_EQ(b.first_seq, 1u);
  EXPECT_TRUE(b.payloads.empty());
}

}  // namespace
}  // namespace cfx::replication
