// Work folders of the `cfx bench` harnesses: made fresh, removed afterwards. C++14-clean
// (the FIX bench's QuickFIX translation unit calls it); work_dir.cc does the work with
// std::filesystem.
#ifndef CFX_PERF_HARNESS_WORK_DIR_H_
#define CFX_PERF_HARNESS_WORK_DIR_H_

#include <string>

namespace cfx {
namespace perf {
namespace internal {

// Creates a fresh folder from `pattern`, a path ending in "XXXXXX" (mkdtemp). Returns its
// path, or "" when it cannot be created.
std::string MakeTempDir(std::string pattern);

// Creates `path` and any missing parents. Returns false when it cannot (a file in the way,
// permissions); an existing folder is fine.
bool MakeDirs(const std::string& path);

// Removes `path` and everything below it. A failure is ignored: a work folder left behind
// is harmless.
void RemoveDirQuietly(const std::string& path);

}  // namespace internal
}  // namespace perf
}  // namespace cfx

#endif  // CFX_PERF_HARNESS_WORK_DIR_H_
