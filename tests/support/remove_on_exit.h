// Removes a test's temporary folder when the test ends, however it ends (an ASSERT
// returns early); RemoveAtProgramExit, a file or folder a helper made, when the test
// program ends.
#ifndef CFX_TESTS_SUPPORT_REMOVE_ON_EXIT_H_
#define CFX_TESTS_SUPPORT_REMOVE_ON_EXIT_H_

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

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

// Registers `path` (a file or a folder) to be removed when the program exits normally, so a
// helper that returns a path leaves nothing behind in the test temp folder. Thread-safe.
inline void RemoveAtProgramExit(const std::string& path) {
  struct Registry {
    std::mutex mu;
    std::vector<std::string> paths;
    ~Registry() {
      std::error_code ec;
      for (const std::string& p : paths) std::filesystem::remove_all(p, ec);
    }
  };
  static Registry registry;
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.paths.push_back(path);
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_REMOVE_ON_EXIT_H_
