// Removes a test's temporary folder when the test ends, however it ends (an ASSERT
// returns early).
#ifndef CFX_TESTS_SUPPORT_REMOVE_ON_EXIT_H_
#define CFX_TESTS_SUPPORT_REMOVE_ON_EXIT_H_

#include <filesystem>
#include <string>
#include <system_error>

namespace cfx::testsupport {

class RemoveOnExit {
 public:
  explicit RemoveOnExit(std::string path) : path_(std::move(path)) {}
  ~RemoveOnExit() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  RemoveOnExit(const RemoveOnExit&) = delete;
  RemoveOnExit& operator=(const RemoveOnExit&) = delete;

 private:
  std::string path_;
};

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_REMOVE_ON_EXIT_H_
