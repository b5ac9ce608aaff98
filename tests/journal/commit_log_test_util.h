// What the commit log's tests share (commit_log_test.cc, commit_log_torn_test.cc): logs
// written entry by entry, bytes overwritten, offsets, and the format's bytes written by hand
// from docs/formats.md ("Commit log").
#ifndef CFX_TESTS_JOURNAL_COMMIT_LOG_TEST_UTIL_H_
#define CFX_TESTS_JOURNAL_COMMIT_LOG_TEST_UTIL_H_

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "cfx/journal/crc32c.h"
#include "commit_log.h"
#include "commit_log_payload.h"
#include "gtest/gtest.h"
#include "record_format.h"

namespace cfx::journal::commit_log_testing {

using internal::CommitLog;
using internal::CommitLogTail;

// Appends one entry per seq in [from, to], one Append each.
inline void AppendSeqs(CommitLog& log, uint64_t from, uint64_t to, int round = 0) {
  for (uint64_t seq = from; seq <= to; ++seq) {
    std::string entries;
    log.EncodeEntry(seq, Payload(seq, round), &entries);
    ASSERT_TRUE(log.Append(&entries).ok());
  }
}

inline std::unique_ptr<CommitLog> OpenLog(const std::string& path, uint64_t after,
                                          CommitLogTail* tail, uint64_t max_bytes = 64 << 20) {
  auto log = CommitLog::Open({.path = path, .max_bytes = max_bytes}, after, tail);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? std::move(*log) : nullptr;
}

// Overwrites `n` bytes at `offset` of `path` with `byte`.
inline void Overwrite(const std::string& path, uint64_t offset, size_t n, char byte) {
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::string bytes(n, byte);
  ASSERT_EQ(pwrite(fd, bytes.data(), n, static_cast<off_t>(offset)), static_cast<ssize_t>(n));
  close(fd);
}

constexpr uint64_t kPrefix = internal::kCommitLogEntryPrefix;  // 16 (version 4)
constexpr uint64_t kRecordHeader = internal::kHeaderSize;      // 24

// Offset of the entry for `seq` when seqs 1.. were appended from the start.
inline uint64_t OffsetOf(uint64_t seq) {
  uint64_t at = internal::kCommitLogHeaderSize;
  for (uint64_t s = 1; s < seq; ++s) at += kPrefix + kRecordHeader + Payload(s).size();
  return at;
}

// A commit log's 4,096-byte header of `version` and `generation` (docs/formats.md).
inline std::string LogHeader(uint16_t version, uint64_t generation) {
  std::string header(internal::kCommitLogHeaderSize, '\0');
  internal::PutLe(header.data(), 0x4C584643, 4);  // "CFXL"
  internal::PutLe(header.data() + 4, version, 2);
  internal::PutLe(header.data() + 8, generation, 8);
  internal::PutLe(header.data() + 16, Crc32c(header.data(), 16), 4);
  return header;
}

// One entry as version 4 writes it, written by hand from docs/formats.md: the generation's
// low 32 bits, the CRC-32C of the generation, the prefix's bytes 8..15 and the record's
// header, then how far back the entry's append begins and how far ahead it ends.
inline std::string EntryV4(uint64_t generation, uint64_t seq, absl::string_view payload,
                           uint32_t back, uint32_t ahead) {
  const std::string value = internal::EncodeValue(internal::kRecordMagic, seq, payload);
  std::string prefix(kPrefix, '\0');
  internal::PutLe(prefix.data(), generation & 0xFFFFFFFF, 4);
  internal::PutLe(prefix.data() + 8, back, 4);
  internal::PutLe(prefix.data() + 12, ahead, 4);
  char gen[8];
  internal::PutLe(gen, generation, 8);
  const uint32_t crc =
      Crc32cExtend(Crc32cExtend(Crc32c(gen, 8), prefix.data() + 8, 8), value.data(), kRecordHeader);
  internal::PutLe(prefix.data() + 4, crc, 4);
  return prefix + value;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace cfx::journal::commit_log_testing

#endif  // CFX_TESTS_JOURNAL_COMMIT_LOG_TEST_UTIL_H_
