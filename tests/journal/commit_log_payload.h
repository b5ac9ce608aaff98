// The payload the commit log tests write for a record: its seq and a round in it, and a
// length that varies with the seq.
#ifndef CFX_TESTS_JOURNAL_COMMIT_LOG_PAYLOAD_H_
#define CFX_TESTS_JOURNAL_COMMIT_LOG_PAYLOAD_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace cfx::journal {

inline std::string Payload(uint64_t seq, int round = 0) {
  return absl::StrCat("input-", seq, "-round-", round, "-", std::string(seq % 50, 'x'));
}

}  // namespace cfx::journal

#endif  // CFX_TESTS_JOURNAL_COMMIT_LOG_PAYLOAD_H_
