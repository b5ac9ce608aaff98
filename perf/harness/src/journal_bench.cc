#include "cfx/perf/journal_bench.h"

#include <filesystem>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cfx/journal/journal.h"
#include "work_dir.h"

namespace cfx::perf {
namespace {

absl::StatusOr<nlohmann::json> RunOnJournal(const JournalBenchOptions& options,
                                            const std::string& dir) {
  auto journal = journal::Journal::Open({.data_dir = dir,
                                         .map_size_bytes = options.map_size_gib << 30,
                                         .unsafe_no_sync = options.unsafe_no_sync});
  if (!journal.ok()) return journal.status();
  if ((*journal)->LastSeq() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat((*journal)->path(), " already holds records; use an empty data dir"));
  }
  HarnessConfig harness = options.harness;
  harness.journal = journal->get();
  return RunHarness(harness);
}

}  // namespace

absl::StatusOr<nlohmann::json> RunJournalBench(const JournalBenchOptions& options) {
  namespace fs = std::filesystem;
  const bool temporary = options.data_dir.empty();
  std::string dir = options.data_dir;
  if (temporary) {
    dir = internal::MakeTempDir((fs::temp_directory_path() / "cfx_bench_journal_XXXXXX").string());
    if (dir.empty()) {
      std::ostringstream message;
      message << "cannot create a temp dir in " << fs::temp_directory_path();
      return absl::UnavailableError(message.str());
    }
  }
  absl::StatusOr<nlohmann::json> out = RunOnJournal(options, dir);
  if (temporary) internal::RemoveDirQuietly(dir);
  if (!out.ok()) return out;
  (*out)["journal"] = true;
  (*out)["synced"] = !options.unsafe_no_sync;
  (*out)["data_dir"] = dir;
  return out;
}

}  // namespace cfx::perf
