#include "work_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>

namespace cfx::perf::internal {

std::string MakeTempDir(std::string pattern) {
  if (mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

bool MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  return !ec;
}

void RemoveDirQuietly(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace cfx::perf::internal
