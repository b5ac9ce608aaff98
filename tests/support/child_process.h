// Runs a helper binary as a child process for crash tests: reads its standard output and
// kills it with SIGKILL after a while, as a power cut or `kill -9` would.
#ifndef CFX_TESTS_SUPPORT_CHILD_PROCESS_H_
#define CFX_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace cfx::testsupport {

struct ChildRun {
  std::string output;  // everything the child wrote to standard output
  int status = 0;      // waitpid status
  bool killed = false;  // SIGKILL was sent (the child may have exited before)
  bool armed = false;   // the kill's time counted from the start, or from `armed_by`'s line
};

// Starts `binary` with `args`, collects its standard output and, when `kill_after` is
// non-negative, sends SIGKILL once that much time has passed; then reads to EOF and reaps.
// With `armed_by`, the time counts from the first output line that starts with it (a
// child's "recovered" line: a slow start, under a sanitizer or behind a busy disk, then
// does not use up the time meant for its work); a child that never writes such a line is
// killed after kArmLimit, and `armed` stays false.
inline constexpr std::chrono::milliseconds kArmLimit{60000};

inline bool HasLineStarting(const std::string& output, const std::string& prefix) {
  return output.compare(0, prefix.size(), prefix) == 0 ||
         output.find("\n" + prefix) != std::string::npos;
}

inline ChildRun RunChild(const std::string& binary, const std::vector<std::string>& args,
                         std::chrono::milliseconds kill_after, const std::string& armed_by = "") {
  ChildRun run;
  int fds[2];
  if (pipe(fds) != 0) {
    run.status = -1;
    return run;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[65536];
  bool waiting_to_arm = kill_after.count() >= 0 && !armed_by.empty();
  run.armed = kill_after.count() >= 0 && armed_by.empty();
  auto deadline = std::chrono::steady_clock::now() + (waiting_to_arm ? kArmLimit : kill_after);
  bool kill_pending = kill_after.count() >= 0;
  for (;;) {
    if (waiting_to_arm && HasLineStarting(run.output, armed_by)) {
      waiting_to_arm = false;
      run.armed = true;
      deadline = std::chrono::steady_clock::now() + kill_after;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (kill_pending && left.count() <= 0) {
      kill(pid, SIGKILL);
      kill_pending = false;
      run.killed = true;
    }
    pollfd p{fds[0], POLLIN, 0};
    poll(&p, 1, kill_pending ? static_cast<int>(std::max<int64_t>(1, left.count())) : 1000);
    if (p.revents == 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child is gone
    run.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  waitpid(pid, &run.status, 0);
  return run;
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_CHILD_PROCESS_H_
