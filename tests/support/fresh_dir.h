// An empty folder for a test that outlives it (for inspection after a failure), named after
// the test and the process: <gtest temp dir>/<name>_<pid>, emptied first if an earlier run
// left it.
//
//   const std::string dir = testsupport::FreshDir("cfx_serve_http_process");
#ifndef CFX_TESTS_SUPPORT_FRESH_DIR_H_
#define CFX_TESTS_SUPPORT_FRESH_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace cfx::testsupport {

// Adds a test failure when the folder cannot be emptied or made.
inline std::string FreshDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ec) std::filesystem::create_directories(dir, ec);
  EXPECT_FALSE(ec) << dir << ": " << ec.message();
  return dir;
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_FRESH_DIR_H_
