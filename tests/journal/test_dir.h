// A fresh temporary folder per test, removed afterwards.
#ifndef CFX_TESTS_JOURNAL_TEST_DIR_H_
#define CFX_TESTS_JOURNAL_TEST_DIR_H_

#include <cstdlib>
#include <filesystem>
#include <string>

namespace cfx::journal {

class TestDir {
 public:
  TestDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "cfx_journal_test_XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    path_ = made != nullptr ? made : "";
  }
  ~TestDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace cfx::journal

#endif  // CFX_TESTS_JOURNAL_TEST_DIR_H_
