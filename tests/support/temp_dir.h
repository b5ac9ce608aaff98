// A fresh temporary folder for a test, made at construction and removed (with everything
// in it) at destruction, however the test ends.
//
//   testsupport::TempDir dir("cfx_journal_test");  // $TMPDIR/cfx_journal_test_XXXXXX
//   auto journal = Journal::Open({.data_dir = dir.path()});
#ifndef CFX_TESTS_SUPPORT_TEMP_DIR_H_
#define CFX_TESTS_SUPPORT_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace cfx::testsupport {

class TempDir {
 public:
  // Makes <temp>/<prefix>_XXXXXX (mkdtemp). path() is "" if that fails.
  explicit TempDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    char* made = mkdtemp(pattern.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_TEMP_DIR_H_
