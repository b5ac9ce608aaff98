// What a kill -9 of the journal's writer leaves behind: inputs acknowledged through the
// journal's commit log and never copied into LMDB. A forked child writes them and ends with
// _exit (no destructor, so no copy), for tests of what the next open does with them.
//
//   ASSERT_TRUE(testsupport::LeaveInTheCommitLog(dir.path(), {"input 1", "input 2"}));
#ifndef CFX_TESTS_SUPPORT_COMMIT_LOG_CHILD_H_
#define CFX_TESTS_SUPPORT_COMMIT_LOG_CHILD_H_

#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "cfx/journal/journal.h"

namespace cfx::testsupport {

// Appends each payload as a batch of its own (each acknowledged durable) to the journal in
// `data_dir`, whose copier is an hour away. True when the child wrote them all.
inline bool LeaveInTheCommitLog(const std::string& data_dir,
                                const std::vector<std::string>& payloads) {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    auto j = journal::Journal::Open({.data_dir = data_dir,
                                     .defer_commit_sync = true,
                                     .commit_log = true,
                                     .commit_log_copy_every_ms = 3'600'000});
    if (!j.ok()) _exit(2);
    for (const std::string& payload : payloads) {
      std::vector<absl::string_view> one = {payload};
      if (!(*j)->AppendBatch(one).ok()) _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_COMMIT_LOG_CHILD_H_
