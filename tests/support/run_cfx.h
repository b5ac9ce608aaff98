// Runs the built `cfx` binary for CLI tests: one header shared by the test folders that
// drive `cfx` as a user would (CUDA off, so results do not depend on the machine).
#ifndef CFX_TESTS_SUPPORT_RUN_CFX_H_
#define CFX_TESTS_SUPPORT_RUN_CFX_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cfx::testsupport {

struct CfxResult {
  int exit_code = -1;  // -1: did not run or did not exit normally
  std::string output;  // standard output and standard error, interleaved
};

// `cfx <args>` with CFX_FORCE_CPU=1; `args` is passed through the shell as it is.
inline CfxResult RunCfx(const std::string& args) {
  const std::string cmd =
      std::string("CFX_FORCE_CPU=1 ") + CFX_BINARY_DIR + "/app/cfx " + args + " 2>&1";
  CfxResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_RUN_CFX_H_
